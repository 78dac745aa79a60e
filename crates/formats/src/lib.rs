//! `qwen_memory_formats`: pure functions over text — topic documents, their YAML frontmatter, the secret
//! scanner and small text helpers. Nothing here touches the file system (docs/DESIGN.md, "Layers").

pub mod diff;
pub mod doc;
pub mod json_splice;
pub mod sanitize;
pub mod secrets;
pub mod text;
pub mod yaml;
