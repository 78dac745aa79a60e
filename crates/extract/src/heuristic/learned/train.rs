//! Training of the learned scorer: a logistic regression for "durable or not" and a softmax
//! regression for the memory type of durable messages, over the hashed features of
//! [`super::features`]. Deterministic: the same labelled messages give the same weights, byte
//! for byte, on every machine.
//!
//! This file uses only `std`: the training command (`examples/extract_real.rs -- --train`) trains on `tests/corpus/extract/dev/`
//! (docs/DESIGN.md, "Extract"); the library exposes it so an evaluation can train on one part of
//! the data and score another.

use std::collections::HashMap;

/// The memory types in the order of the type outputs.
pub const TOPICS: [&str; 4] = ["user", "feedback", "project", "reference"];
/// Outputs per feature: the durable logit, then one logit per type.
pub const OUTPUTS: usize = 1 + TOPICS.len();
/// Bytes per weights entry: the feature hash, then the outputs as little-endian `f32`s.
pub const ENTRY_BYTES: usize = 8 + 4 * OUTPUTS;
/// Marks the start of encoded weights (and their format version).
pub const MAGIC: &[u8; 8] = b"QMLW0001";

/// One labelled message: its hashed features and, when durable, the index of its type in
/// [`TOPICS`].
pub struct Example {
    pub features: Vec<u64>,
    pub topic: Option<usize>,
}

/// Rounds over the data, learning rate, and the smallest number of messages a feature must
/// occur in to get a weight (a feature seen once is a fact about one message, not a language).
const EPOCHS: usize = 30;
const LEARNING_RATE: f32 = 0.2;
const MIN_MESSAGES: u32 = 2;
const L2: f32 = 1e-3;

/// Trains on `examples`; returns `(feature hash, outputs)` sorted by hash for every feature
/// that occurs in at least `MIN_MESSAGES` messages. All of them are kept, even with tiny
/// weights: a message's features are scaled by how many of them the model knows, so the model
/// must know the same ones it was trained with.
pub fn train(examples: &[Example]) -> Vec<(u64, [f32; OUTPUTS])> {
    let mut seen: HashMap<u64, u32> = HashMap::new();
    for e in examples {
        for &f in &e.features {
            *seen.entry(f).or_default() += 1;
        }
    }
    let mut kept: Vec<u64> = seen
        .iter()
        .filter(|(_, &n)| n >= MIN_MESSAGES)
        .map(|(&f, _)| f)
        .collect();
    kept.sort_unstable();
    let index: HashMap<u64, usize> = kept.iter().enumerate().map(|(i, &f)| (f, i)).collect();
    let rows: Vec<(Vec<usize>, Option<usize>)> = examples
        .iter()
        .map(|e| {
            let mut r: Vec<usize> = e
                .features
                .iter()
                .filter_map(|f| index.get(f).copied())
                .collect();
            r.sort_unstable();
            r.dedup();
            (r, e.topic)
        })
        .collect();

    let mut w = vec![[0f32; OUTPUTS]; kept.len()];
    // AdaGrad: rare features (most CJK n-grams) keep a larger step than common ones.
    let mut g2 = vec![[1e-8f32; OUTPUTS]; kept.len()];
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut rng: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..EPOCHS {
        // Fisher–Yates with a fixed xorshift stream: a fixed order per epoch, every machine.
        for i in (1..order.len()).rev() {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            order.swap(i, (rng % (i as u64 + 1)) as usize);
        }
        for &k in &order {
            let (feats, topic) = &rows[k];
            if feats.is_empty() {
                continue;
            }
            // Every message weighs the same, however long: x = 1/sqrt(n) per present feature.
            let x = 1.0 / (feats.len() as f32).sqrt();
            let logits = logits(&w, feats, x);
            let mut grad = [0f32; OUTPUTS];
            grad[0] = sigmoid(logits[0]) - if topic.is_some() { 1.0 } else { 0.0 };
            if let Some(t) = topic {
                let p = softmax(&logits[1..]);
                for (j, pj) in p.iter().enumerate() {
                    grad[1 + j] = pj - if j == *t { 1.0 } else { 0.0 };
                }
            }
            for &f in feats {
                for o in 0..OUTPUTS {
                    let g = grad[o] * x + L2 * w[f][o];
                    if g == 0.0 {
                        continue;
                    }
                    g2[f][o] += g * g;
                    w[f][o] -= LEARNING_RATE * g / g2[f][o].sqrt();
                }
            }
        }
    }
    kept.into_iter().zip(w).collect()
}

fn logits(w: &[[f32; OUTPUTS]], feats: &[usize], x: f32) -> [f32; OUTPUTS] {
    let mut out = [0f32; OUTPUTS];
    for &f in feats {
        for (o, v) in out.iter_mut().enumerate() {
            *v += w[f][o] * x;
        }
    }
    out
}

/// The logistic function.
pub fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}

/// Probabilities from logits.
pub fn softmax(z: &[f32]) -> Vec<f32> {
    let max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = z.iter().map(|v| (v - max).exp()).collect();
    let sum: f32 = e.iter().sum();
    e.into_iter().map(|v| v / sum).collect()
}

/// The weights as bytes: [`MAGIC`], then one [`ENTRY_BYTES`] entry per feature, sorted by hash.
pub fn encode(weights: &[(u64, [f32; OUTPUTS])]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + weights.len() * ENTRY_BYTES);
    out.extend_from_slice(MAGIC);
    for (h, ws) in weights {
        out.extend_from_slice(&h.to_le_bytes());
        for v in ws {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Every labelled message of the given corpora, each a name for messages (its path) and its
/// text, in the order given, then line order: what the training command trains the scorer on.
/// The caller reads the files (this crate does no I/O: see `examples/extract_real.rs`). An
/// error names the corpus and line that could not be read.
pub fn corpus_examples<N: std::fmt::Display>(
    corpora: &[(N, String)],
) -> Result<Vec<Example>, String> {
    let mut out = Vec::new();
    for (name, text) in corpora {
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let (message, topic) = parse_corpus_line(line)
                .ok_or_else(|| format!("{name}:{}: not a corpus record", n + 1))?;
            out.push(Example {
                features: super::features::features(&message),
                topic,
            });
        }
    }
    Ok(out)
}

/// Reads one labelled corpus line's fields training needs, without a JSON library:
/// `(text, type)` where type is `None` for a message that is not durable. Returns `None` for a
/// line that is not a corpus record.
pub fn parse_corpus_line(line: &str) -> Option<(String, Option<usize>)> {
    let text = json_string_field(line, "text")?;
    let durable = line.contains("\"durable\": true") || line.contains("\"durable\":true");
    let topic = if durable {
        let t = json_string_field(line, "type")?;
        Some(TOPICS.iter().position(|x| *x == t)?)
    } else {
        None
    };
    Some((text, topic))
}

fn json_string_field(line: &str, key: &str) -> Option<String> {
    let at = line.find(&format!("\"{key}\""))? + key.len() + 2;
    let rest = line[at..].trim_start().strip_prefix(':')?.trim_start();
    let mut chars = rest.strip_prefix('"')?.chars();
    let mut out = String::new();
    loop {
        match chars.next()? {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'u' => {
                    let mut code =
                        u32::from_str_radix(&chars.by_ref().take(4).collect::<String>(), 16)
                            .ok()?;
                    if (0xD800..0xDC00).contains(&code) {
                        // A surrogate pair: the low half follows as another \uXXXX.
                        let low: String = chars.by_ref().take(6).collect();
                        let low = u32::from_str_radix(low.strip_prefix("\\u")?, 16).ok()?;
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    }
                    out.push(char::from_u32(code)?);
                }
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_lines_parse_with_escapes() {
        let (text, topic) = parse_corpus_line(
            r#"{"text": "say \"hi\"\n\u4e2d\ud83d\ude00", "durable": true, "type": "project"}"#,
        )
        .unwrap();
        assert_eq!(text, "say \"hi\"\n中😀");
        assert_eq!(topic, Some(2));
        assert_eq!(
            parse_corpus_line(r#"{"text": "thanks", "durable": false, "type": null}"#),
            Some(("thanks".to_string(), None))
        );
        assert_eq!(parse_corpus_line("not json"), None);
    }

    #[test]
    fn training_separates_what_it_was_shown_and_is_deterministic() {
        let ex = |t: &str, topic| Example {
            features: super::super::features::features(t),
            topic,
        };
        let data: Vec<Example> = (0..20)
            .flat_map(|i| {
                [
                    ex(&format!("we always deploy service {i} from main"), Some(2)),
                    ex(&format!("can you fix test {i} please"), None),
                ]
            })
            .collect();
        let a = train(&data);
        let b = train(&data);
        assert_eq!(encode(&a), encode(&b));
        let score = |t: &str| {
            let f = super::super::features::features(t);
            let known: Vec<f32> = a
                .iter()
                .filter(|(h, _)| f.contains(h))
                .map(|(_, w)| w[0])
                .collect();
            sigmoid(known.iter().sum::<f32>() / (known.len() as f32).sqrt())
        };
        assert!(score("we always deploy from main") > 0.5);
        assert!(score("can you fix this please") < 0.5);
    }
}
