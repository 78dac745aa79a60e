//! Recall: picks the memories relevant to a query (SPEC §6).
//!
//! The deterministic path is [`lexical`] (tokenizer, scoring, ranking) followed by [`prompt`]
//! (the "## Relevant memory" block). [`select`] layers the optional model choice on top.

pub mod lexical;
pub mod prompt;
pub mod select;

pub use lexical::{rank_lexical, rank_lexical_all, tokenize, LexicalQuery, Ranked};
pub use prompt::{
    age_days, memory_age, memory_freshness_note, memory_freshness_text, render_prompt,
};

/// Default number of documents recall returns (`recall.limit`).
pub const MAX_RELEVANT_DOCS: usize = 5;

/// Body window, in UTF-16 code units, used both for scoring and for the prompt block.
pub const MAX_DOC_BODY_CHARS: usize = 1200;

/// Most query tokens kept after deduplication (first half + rolling last half).
pub const MAX_QUERY_TOKENS: usize = 64;

/// The placeholder an entry-less body renders as; it counts as an empty body.
pub const NO_ENTRIES_PLACEHOLDER: &str = "_No entries yet._";
