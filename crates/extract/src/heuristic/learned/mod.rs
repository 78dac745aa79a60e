//! The learned scorer: a second opinion beside the phrase and shape rules.
//!
//! The rules are precise, but on messages by people whose wording they have not seen they missed
//! a durable fact about one time in five (docs/DESIGN.md, "Extract"). A linear model over words
//! and character n-grams ([`features`]), trained on every labelled development message
//! ([`train`], on `tests/corpus/extract/dev/`; the weights are committed), generalizes from the
//! whole corpus rather than from one phrase per rule. The rules stay first; the scorer speaks
//! only when it is sure: it keeps a message the rules kept nothing from, corrects the type of a
//! sentence they kept, or drops what they kept from a message that reads like noise.

pub mod features;
pub mod train;

use crate::formats::doc::MemoryType;
use train::{sigmoid, softmax, ENTRY_BYTES, MAGIC, OUTPUTS};

/// Weights trained on the synthetic development corpora (`tests/corpus/extract/dev/`):
/// generated and committed by `cargo run --example extract_real -- --train`; a unit test
/// checks they are what training gives. The build reads no corpus.
static BUILTIN: &[u8] = include_bytes!("weights.bin");

/// The probability of "durable" at or above which a message the rules kept nothing from is
/// kept anyway. Chosen on the validation corpora (README, "Extract" → "Quality"), never on a
/// held-out set.
pub const RESCUE_THRESHOLD: f32 = 0.7;

/// The type probability at or above which the scorer's type replaces the type the rules gave a
/// sentence they kept. The rules pick a type from a sentence's subject and a few cue words; the
/// scorer weighs every word, and on the validation corpora it was right more often whenever it
/// was at least this sure.
pub const TYPE_THRESHOLD: f32 = 0.6;

/// The probability of "durable" below which what the rules kept from a message is dropped: a
/// phrase rule fired on a message that, word for word, reads like noise.
pub const VETO_THRESHOLD: f32 = 0.2;

/// A trained scorer: encoded weights ([`train::encode`]) and its three thresholds.
#[derive(Clone, Copy)]
pub struct Model<'a> {
    entries: &'a [u8],
    /// [`RESCUE_THRESHOLD`] for the built-in model.
    pub threshold: f32,
    /// [`TYPE_THRESHOLD`] for the built-in model.
    pub type_threshold: f32,
    /// [`VETO_THRESHOLD`] for the built-in model.
    pub veto_threshold: f32,
}

/// What the scorer says about a text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// Probability that the text holds a durable statement.
    pub durable: f32,
    /// The most likely type, should it be durable.
    pub topic: MemoryType,
    /// Its probability among the four types.
    pub topic_probability: f32,
}

impl Model<'static> {
    /// The weights built into this binary, with the built-in thresholds.
    pub fn builtin() -> Self {
        // The committed weights are always valid; were they not, the rules work alone.
        Model::builtin_from(BUILTIN).unwrap_or(Model::rules_only())
    }

    /// A model that never keeps, retypes or drops anything: the rules alone.
    pub fn rules_only() -> Self {
        Model {
            entries: &[],
            threshold: f32::INFINITY,
            type_threshold: f32::INFINITY,
            veto_threshold: 0.0,
        }
    }
}

impl<'a> Model<'a> {
    /// A model from encoded weights with the built-in thresholds; `None` if they do not decode.
    pub fn builtin_from(bytes: &'a [u8]) -> Option<Self> {
        Model::from_bytes(bytes, RESCUE_THRESHOLD).map(|m| Model {
            type_threshold: TYPE_THRESHOLD,
            veto_threshold: VETO_THRESHOLD,
            ..m
        })
    }

    /// A model from [`train::encode`]d weights that rescues at `threshold` and never changes a
    /// rule's type; `None` if the bytes are not in that format.
    pub fn from_bytes(bytes: &'a [u8], threshold: f32) -> Option<Self> {
        let entries = bytes.strip_prefix(MAGIC.as_slice())?;
        (entries.len() % ENTRY_BYTES == 0).then_some(Model {
            entries,
            threshold,
            type_threshold: f32::INFINITY,
            veto_threshold: 0.0,
        })
    }

    /// The weights of one feature: the durable logit, then one per type.
    pub fn lookup(&self, hash: u64) -> Option<[f32; OUTPUTS]> {
        let n = self.entries.len() / ENTRY_BYTES;
        let key = |i: usize| {
            let at = i * ENTRY_BYTES;
            let mut b = [0u8; 8];
            b.copy_from_slice(&self.entries[at..at + 8]);
            u64::from_le_bytes(b)
        };
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match key(mid).cmp(&hash) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let mut out = [0f32; OUTPUTS];
                    let at = mid * ENTRY_BYTES + 8;
                    for (o, v) in out.iter_mut().enumerate() {
                        let mut b = [0u8; 4];
                        b.copy_from_slice(&self.entries[at + 4 * o..at + 4 * o + 4]);
                        *v = f32::from_le_bytes(b);
                    }
                    return Some(out);
                }
            }
        }
        None
    }

    /// Scores `text`; `None` when the model knows none of its features.
    pub fn score(&self, text: &str) -> Option<Verdict> {
        self.score_features(&features::features(text))
    }

    /// Scores hashed features (each once); `None` when the model knows none of them.
    pub fn score_features(&self, feats: &[u64]) -> Option<Verdict> {
        let mut sum = [0f32; OUTPUTS];
        let mut known = 0usize;
        for &h in feats {
            if let Some(w) = self.lookup(h) {
                known += 1;
                for (s, v) in sum.iter_mut().zip(w) {
                    *s += v;
                }
            }
        }
        if known == 0 {
            return None;
        }
        let x = 1.0 / (known as f32).sqrt();
        let types = softmax(&sum[1..].iter().map(|v| v * x).collect::<Vec<_>>());
        let best = (0..types.len())
            .max_by(|&a, &b| types[a].total_cmp(&types[b]))
            .unwrap_or(0);
        Some(Verdict {
            durable: sigmoid(sum[0] * x),
            topic: MemoryType::ALL[best],
            topic_probability: types[best],
        })
    }

    /// Whether the scorer would keep a message with this verdict.
    pub fn keeps(&self, v: &Verdict) -> bool {
        v.durable >= self.threshold
    }

    /// Whether what the rules kept from `message` is dropped: the scorer is sure it is noise.
    pub fn vetoes(&self, message: &str) -> bool {
        self.veto_threshold > 0.0
            && self
                .score(message)
                .is_some_and(|v| v.durable < self.veto_threshold)
    }

    /// The type for a sentence the rules kept with type `rules`.
    pub fn topic_for(&self, sentence: &str, rules: MemoryType) -> MemoryType {
        match self.score(sentence) {
            Some(v) if v.topic_probability >= self.type_threshold => v.topic,
            _ => rules,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_weights_are_present_and_decisive_on_plain_cases() {
        let m = Model::builtin();
        assert!(
            m.entries.len() > 1000 * ENTRY_BYTES,
            "{} bytes",
            m.entries.len()
        );
        let fact = m
            .score("Our team always deploys from the release branch.")
            .unwrap();
        let noise = m.score("thanks, that works now!").unwrap();
        assert!(fact.durable > noise.durable, "{fact:?} vs {noise:?}");
        assert!(noise.durable < 0.5, "{noise:?}");
    }

    /// The weights in the binary are exactly what training on the dev corpora gives: no
    /// validation or held-out message went into them.
    #[test]
    fn builtin_weights_are_trained_on_the_dev_corpora_only() {
        let dev =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/extract/dev");
        let mut files: Vec<_> = std::fs::read_dir(&dev)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        let corpora: Vec<_> = files
            .iter()
            .map(|f| (f.display(), std::fs::read_to_string(f).unwrap()))
            .collect();
        let examples = train::corpus_examples(&corpora).unwrap();
        assert!(examples.len() > 5000, "{}", examples.len());
        assert!(train::encode(&train::train(&examples)) == BUILTIN);
    }

    #[test]
    fn encoded_weights_round_trip_through_lookup() {
        let w = vec![(3u64, [1.0, 0.0, 0.0, 2.0, 0.0]), (9u64, [-1.0; 5])];
        let bytes = train::encode(&w);
        let m = Model::from_bytes(&bytes, 0.5).unwrap();
        assert_eq!(m.lookup(3), Some(w[0].1));
        assert_eq!(m.lookup(9), Some(w[1].1));
        assert_eq!(m.lookup(4), None);
        assert!(Model::from_bytes(b"nope", 0.5).is_none());
    }
}
