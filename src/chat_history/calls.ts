/**
 * The calls' client ids live in `threads/` (the dataset room reads them too); named here as before.
 */
export { callClientIds, keepCallsTogether } from "../threads/calls";
