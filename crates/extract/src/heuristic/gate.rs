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
pub const KEEP_THRESHOLD: f32 = 0.25;

/// The probability of "durable" at or above which a message the rules kept nothing from is
/// kept anyway (its most durable-looking sentence).
pub const RESCUE_THRESHOLD: f32 = 0.7;

/// The gate's type probability at or above which its type replaces the rules' type, in a
/// message the scorer does not trust ([`TRUST_THRESHOLD`]): where the scorer is sure, the
/// message reads like the synthetic corpora, whose types the rules know.
pub const TYPE_THRESHOLD: f32 = 0.6;

/// The learned scorer's "durable" probability at or above which the gate does not drop a
/// message: the scorer was trained on the synthetic corpora, and where it is this sure the
/// message reads like the rules it was written for, which the real train split is too small to
/// know (without it the gate drops most durable messages of the synthetic held-out sets).
pub const TRUST_THRESHOLD: f32 = 0.5;

/// The gate's "durable" probability below which a message is kept only when one of its
/// sentences states a standing rule ([`super::standing`]). Chosen on `dev` for precision
/// (docs/quality/extract.md): on real chats the gate alone, at its keep threshold, keeps
/// one-off requests.
pub const STRICT_THRESHOLD: f32 = 0.8;

/// The synthetic scorer's "durable" probability at or above which a short plain statement
/// (no question, bug, request or one-off cue) escapes the strict rule: the synthetic corpora's
/// voice, which the real train split is too small to know.
pub const STRICT_TRUST_THRESHOLD: f32 = 0.8;

/// A gate: the weights and its thresholds.
#[derive(Clone, Copy)]
pub struct Gate<'a> {
    model: Option<Model<'a>>,
    /// [`KEEP_THRESHOLD`] for the built-in gate.
    pub keep: f32,
    /// [`RESCUE_THRESHOLD`] for the built-in gate.
    pub rescue: f32,
    /// [`TYPE_THRESHOLD`] for the built-in gate.
    pub retype: f32,
    /// [`TRUST_THRESHOLD`] for the built-in gate.
    pub trust: f32,
    /// 0 (off) for the built-in gate, [`STRICT_THRESHOLD`] with [`Gate::with_strict_rule`].
    pub strict: f32,
    /// [`STRICT_TRUST_THRESHOLD`] for the built-in gate.
    pub trust_strict: f32,
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
            trust: 0.0,
            strict: 0.0,
            trust_strict: 0.0,
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
            trust: TRUST_THRESHOLD,
            strict: 0.0,
            trust_strict: STRICT_TRUST_THRESHOLD,
        })
    }

    /// This gate with the strict keep rule on ([`STRICT_THRESHOLD`], [`super::standing`]). Not
    /// the built-in default yet: it holds real-chat precision but cuts the synthetic corpora's
    /// recall under their bar (docs/quality/extract.md).
    pub fn with_strict_rule(mut self) -> Self {
        self.strict = STRICT_THRESHOLD;
        self
    }

    /// The gate's verdict on a message of `sentences` ([`super::segment::sentences`]), given
    /// what the rules kept from it; `None` for an open gate or a message with no known feature.
    pub fn score(&self, sentences: &[String], rules: &[Patch]) -> Option<Verdict> {
        self.model?
            .score_features(&message_features(sentences, rules))
    }
}

/// The features of a message for the gate: [`features::features`] plus the rules' verdict and
/// the cues that fired ([`super::cues`]), all of its prose: the sentences the rules read, so a
/// pasted log, code block or attachment weighs as little here as it does for them (the raw
/// message's words made the gate's verdict on a rule depend on what was pasted around it).
pub fn message_features(sentences: &[String], rules: &[Patch]) -> Vec<u64> {
    let mut f: Vec<u64> = message_feature_names(sentences, rules)
        .iter()
        .map(|n| features::hash(n))
        .collect();
    f.sort_unstable();
    f.dedup();
    f
}

/// [`message_features`] by name, before hashing.
pub fn message_feature_names(sentences: &[String], rules: &[Patch]) -> Vec<String> {
    let prose = sentences.join("\n");
    let mut names = features::feature_names(&prose);
    if rules.is_empty() {
        names.push("rule|none".into());
    } else {
        names.push("rule|kept".into());
        names.push(format!("rule|n|{}", rules.len().min(3)));
        for p in rules {
            names.push(format!("rule|type|{}", p.topic.as_str()));
        }
        if rules.len() >= sentences.len() {
            names.push("rule|all".into());
        }
    }
    for c in super::cues::fired(&prose) {
        names.push(format!("cue|{}", c.id));
        names.push(format!("cueclass|{}", c.class));
    }
    names
}

impl Gate<'_> {
    /// The `n` known features of a message of `sentences` that weigh most (either way) toward
    /// "durable", by name, with their scaled weight: what `extract --explain` shows.
    pub fn top_features(
        &self,
        sentences: &[String],
        rules: &[Patch],
        n: usize,
    ) -> Vec<(String, f32)> {
        let Some(model) = self.model else {
            return Vec::new();
        };
        let mut names = message_feature_names(sentences, rules);
        names.sort();
        names.dedup();
        let known: Vec<(String, f32)> = names
            .into_iter()
            .filter_map(|name| {
                let w = model.lookup(features::hash(&name))?;
                Some((name, w[0]))
            })
            .collect();
        let x = 1.0 / (known.len().max(1) as f32).sqrt();
        let mut out: Vec<(String, f32)> = known.into_iter().map(|(n, w)| (n, w * x)).collect();
        out.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
        out.truncate(n);
        out
    }
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
