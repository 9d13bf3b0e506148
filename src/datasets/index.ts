/**
 * Thread datasets: read a dataset's conversations (`loadDatasetConversations`); and for
 * fine-tuning, record real chat model runs into a thread dataset
 * (`StudioConversationRecorder`), export the dataset as fine-tuning records
 * (`exportFineTuneRecords`), and check records the way a fine-tuning service would
 * (`validateFineTuneRecord`).
 */
export {
  type DatasetConversation,
  type LoadDatasetConversationsInput,
  loadDatasetConversations,
} from "./conversations";
export { StudioInvalidRecordError, StudioRecordingError } from "./errors";
export {
  type ExportFineTuneRecordsInput,
  exportFineTuneRecords,
  type FineTuneFormat,
  type FineTuneRecord,
  type LangChainRecord,
  type OpenAIChatRecord,
  type SkippedThread,
} from "./export";
export {
  type RedactMessages,
  StudioConversationRecorder,
  type StudioConversationRecorderInput,
} from "./recorder";
export {
  DEFAULT_MAX_RECORD_TOKENS,
  type FineTuneProblemCode,
  type FineTuneRecordProblem,
  type ValidateFineTuneRecordOptions,
  validateFineTuneRecord,
} from "./validate-record";
