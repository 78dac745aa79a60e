//! The real-chat gate: a message-level classifier trained on real user turns (the `train` split
//! of the real-chat corpus, docs/quality/extract.md) that decides whether anything of a message
//! is kept. Its features are the learned scorer's words and character n-grams plus what the
//! rules said about the message (did they keep a sentence, how many, of which type, did they
//! keep all of its sentences): the rules become features, and the weight each gets is learned
//! from what real people type rather than from the synthetic voice the rules were written in.
//!
//! The gate speaks last (docs/DESIGN.md, "Extract"): below [`KEEP_THRESHOLD`] nothing of the
//! message is kept, whatever the rules said; above [`RESCUE_THRESHOLD`] a message the rules kept
//! nothing from yields its most durable-looking sentence. Both thresholds favour precision:
//! saving nothing beats saving noise.
//!
//! The weights (`learned/gate.bin`) are generated and committed: `cargo run --example
//! extract_real -- --train` writes them from the real corpus, which the build never reads.

use super::learned::{features, train, Model, Verdict};
use super::Patch;

/// Weights trained on the real-chat `train` split (generated; see the module docs).
static BUILTIN: &[u8] = include_bytes!("learned/gate.bin");

/// The probability of "durable" below which nothing of a message is kept. Chosen on
/// cross-validation over `train` and on `dev` (docs/quality/extract.md).
pub const KEEP_THRESHOLD: f32 = 0.5;

/// The probability of "durable" at or above which a message the rules kept nothing from is
/// kept anyway (its most durable-looking sentence).
pub const RESCUE_THRESHOLD: f32 = 0.8;

/// The gate's type probability at or above which its type replaces the rules' type.
pub const TYPE_THRESHOLD: f32 = 0.6;

/// A gate: the weights and its three thresholds.
#[derive(Clone, Copy)]
pub struct Gate<'a> {
    model: Option<Model<'a>>,
    /// [`KEEP_THRESHOLD`] for the built-in gate.
    pub keep: f32,
    /// [`RESCUE_THRESHOLD`] for the built-in gate.
    pub rescue: f32,
    /// [`TYPE_THRESHOLD`] for the built-in gate.
    pub retype: f32,
}

impl Gate<'static> {
    /// The committed weights with the built-in thresholds; a gate that lets everything through
    /// if the weights are missing (the rules and the scorer then work alone).
    pub fn builtin() -> Self {
        Gate::from_bytes(BUILTIN).unwrap_or(Gate::open())
    }

    /// A gate that never drops, rescues or retypes anything.
    pub fn open() -> Self {
        Gate {
            model: None,
            keep: 0.0,
            rescue: f32::INFINITY,
            retype: f32::INFINITY,
        }
    }
}

impl<'a> Gate<'a> {
    /// A gate from [`train::encode`]d weights with the built-in thresholds.
    pub fn from_bytes(bytes: &'a [u8]) -> Option<Self> {
        let model = Model::from_bytes(bytes, RESCUE_THRESHOLD)?;
        Some(Gate {
            model: Some(model),
            keep: KEEP_THRESHOLD,
            rescue: RESCUE_THRESHOLD,
            retype: TYPE_THRESHOLD,
        })
    }

    /// The gate's verdict on `message`, given what the rules kept from it out of `sentences`
    /// sentences; `None` for an open gate or a message with no known feature.
    pub fn score(&self, message: &str, rules: &[Patch], sentences: usize) -> Option<Verdict> {
        self.model?
            .score_features(&message_features(message, rules, sentences))
    }
}

/// The features of a message for the gate: [`features::features`] plus the rules' verdict.
pub fn message_features(message: &str, rules: &[Patch], sentences: usize) -> Vec<u64> {
    let mut f = features::features(message);
    let mut names: Vec<String> = Vec::new();
    if rules.is_empty() {
        names.push("rule|none".into());
    } else {
        names.push("rule|kept".into());
        names.push(format!("rule|n|{}", rules.len().min(3)));
        for p in rules {
            names.push(format!("rule|type|{}", p.topic.as_str()));
        }
        if rules.len() >= sentences {
            names.push("rule|all".into());
        }
    }
    f.extend(names.iter().map(|n| features::hash(n)));
    f.sort_unstable();
    f.dedup();
    f
}

/// A labelled training example for the gate: `rules` is what the rules kept from `message`.
pub fn example(features: Vec<u64>, durable: bool, topic: Option<&str>) -> train::Example {
    train::Example {
        features,
        topic: durable.then(|| {
            topic
                .and_then(|t| train::TOPICS.iter().position(|x| *x == t))
                .unwrap_or(2)
        }),
    }
}
