export { VfsError, isVfsError, type VfsErrorCode } from "./errors.js";
export type { VfsChangeEvent, VfsChangeKind, VfsChangeListener } from "./events.js";
export { normalizePath, showInvisible, parentOf, baseName, joinPath, isWithin, MAX_NAME_LENGTH, MAX_PATH_LENGTH } from "./path.js";
export {
  VirtualFS,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  utf8Length,
  type VfsOptions,
  type VfsFile,
  type VfsStat,
  type VfsUsage,
  type WriteResult,
} from "./vfs.js";
export { gramQuery, type GramQuery } from "./grams.js";
