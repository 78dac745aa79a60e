//! `qwen_memory_extract`: the offline extractor — per-language rules ([`heuristic`]), the
//! learned scorer and gate, cue data, and the patch filters and file naming ([`filter`])
//! (docs/DESIGN.md, "Extract"). Pure functions over text: no I/O, no Git, no clock; it depends
//! on the formats crate only. The library re-exports it as `qwen_memory::ops::extract`.

pub mod filter;
pub mod heuristic;

// Code keeps its one-crate paths (`crate::formats::…`) while the round's branches merge
// (docs/development.md, "Crates").
use qwen_memory_formats as formats;

use formats::doc::MemoryType;

/// One planned memory write (docs/DESIGN.md, "Extract"): a fact, its topic, and the byte offset of the
/// user message it came from. Serialized as upstream's patch JSON
/// (`topic, summary, why?, howToApply?, sourceOffset`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Patch {
    #[serde(serialize_with = "serialize_topic")]
    pub topic: MemoryType,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how_to_apply: Option<String>,
    pub source_offset: u64,
}

// `MemoryType` lives in `doc` without serde; its on-disk spelling is the wire spelling.
fn serialize_topic<S: serde::Serializer>(t: &MemoryType, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.as_str())
}

/// One user-authored message text, already stripped of injected context, with the offset the
/// transcript reader assigned to it (carried into [`Patch::source_offset`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserText<'a> {
    pub offset: u64,
    pub text: &'a str,
}
