/**
 * The one field-check kit every room uses: schemas per set of fields, one step from a zod issue to
 * a `StudioValidationError` naming the field (`ttl.defaultTTL`, `messages[2].content`), and
 * unknown option names refused with the name the caller probably meant.
 */
export { asWritten, type Describe, described, describeValue, typeName } from "./describe";
export { checkField, fieldPath, issueError, type ParseOptions, parseFields } from "./parse";
export {
  functionField,
  integerAtLeast,
  nonEmptyString,
  oneOf,
  quotedList,
} from "./schemas";
export {
  closestName,
  editDistance,
  type KnownKeys,
  knownKeysOnly,
  refuseUnknownKeys,
  unknownKey,
  unknownKeyMessage,
} from "./suggest";
export {
  MODEL_URI_PATTERN,
  type SamplingField,
  samplingSchemas,
  validateField,
  validateMetadata,
} from "./values";
