//! `qwen_memory_formats`: pure functions over text — topic documents, their YAML frontmatter, the secret
//! scanner and small text helpers. Nothing here touches the file system (docs/DESIGN.md, "Layers").

pub mod diff;
pub mod doc;
pub mod sanitize;
pub mod secrets;
pub mod text;
pub mod yaml;

// Code inside this crate keeps its one-crate paths (`crate::formats::…`) while the round's branches
// merge (docs/development.md, "Crates"); a later sed turns them into `crate::…`.
#[allow(unused_imports)]
use crate as formats;
