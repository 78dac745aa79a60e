//! `qwen_memory_storage`: where memory lives and the single write path — project identity and roots, Qwen
//! Code's folders and settings, safe file-system primitives, locks and state files, scanning, the
//! MEMORY.md index, entry writes, backups and this tool's settings (docs/DESIGN.md, "Layers").

pub mod agent_settings;
pub mod backup;
pub mod context;
pub mod entries;
pub mod index;
pub mod project;
pub mod qwen_env;
pub mod qwen_settings;
pub mod root_writer;
pub mod safe_fs;
pub mod scan;
pub mod scan_cache;
pub mod settings;
pub mod store;
pub mod sys;

use qwen_memory_formats as formats;
