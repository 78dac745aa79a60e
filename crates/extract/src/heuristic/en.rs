//! English rules: the shapes of durable statements and of the noise around them.

use std::sync::LazyLock;

use super::mask::{re, rei, Masked, Regex};
use super::segment::{MAX_SENTENCE_LEN, MAX_SENTENCE_WORDS};
use super::words::en as words;
use super::Candidate;
use crate::filter;
use crate::formats::doc::MemoryType;
use crate::formats::text::{collapse_whitespace, utf16_len};

pub(super) fn classify_sentence(raw: &str) -> Option<Candidate> {
    let text = tidy(&collapse_whitespace(raw));
    let len = utf16_len(&text);
    if !(filter::MIN_SUMMARY_LEN..=MAX_SENTENCE_LEN).contains(&len)
        || text.split(' ').count() > MAX_SENTENCE_WORDS
    {
        return None;
    }
    let mut s = Masked::new(&text);
    // "the managed DB is stuck on 13": held at a version, not stuck at the moment. The mask
    // keeps its length, so the original text is unchanged.
    static STUCK_ON: LazyLock<Regex> = LazyLock::new(|| rei(r"\bstuck (?:on|at|with) v?\d"));
    if s.mask.contains("stuck") {
        if let Some(f) = STUCK_ON.find(&s.mask) {
            let at = f.start();
            s.mask.replace_range(at..at + 5, "bound");
        }
    }
    if looks_like_machine_text(&s) {
        return None;
    }
    // "Kindly always add the Jira ID …": the polite opener of many speakers reads as "please"
    // (same length, so the mask stays aligned with the text).
    if s.mask
        .get(..7)
        .is_some_and(|w| w.eq_ignore_ascii_case("kindly "))
    {
        s.mask.replace_range(..7, "please ");
    }
    let s = strip_fillers(s);
    // "Let's always use UTC in logs": a standing "let's" is an instruction, not a plan.
    static LETS_ALWAYS: LazyLock<Regex> = LazyLock::new(|| {
        rei(r"^let(?:'s|s| us) (?P<rest>(?:always|never|not ever|consistently) \w)")
    });
    let lets = s
        .mask
        .get(..3)
        .is_some_and(|w| w.eq_ignore_ascii_case("let"));
    let s = match lets
        .then(|| LETS_ALWAYS.captures(&s.mask))
        .flatten()
        .and_then(|c| c.name("rest"))
    {
        Some(r) => s.tail(r.start()).unwrap_or(s),
        None => s,
    };
    if let Some(c) = state_fact(&s) {
        return Some(c);
    }
    if let Some(c) = explicit_request(&s) {
        return c;
    }
    if let Some(c) = labelled_line(&s) {
        return Some(c);
    }
    statement(&s)
        .or_else(|| by_shape(&s))
        .or_else(|| by_clauses(&s))
}

/// "The team currently uses Redis 7", "The web app is still on React 17": a temporal adverb that
/// qualifies a standing state of the project, not the moment. The sentence is judged without
/// the adverb and kept only as a fact of the project. "currently" and "now" leave the summary —
/// a memory states the present state anyway, and the patch filter drops any summary with them —
/// while "still" stays, since it tells that something old is kept on purpose.
fn state_fact(s: &Masked) -> Option<Candidate> {
    static ADVERB: LazyLock<Regex> =
        LazyLock::new(|| rei(r"(?P<pre>\b[\w'-]+ )(?P<adv>currently|still|now) (?P<next>[\w'-]+)"));
    static PERSON: LazyLock<Regex> =
        LazyLock::new(|| rei(r"^(?:i|i'm|i've|you|you're|we're|it|it's|this|that|there)\b"));
    const NOT_BEFORE: &[&str] = words::STATE_FACT__NOT_BEFORE;
    let mut found = ADVERB.captures_iter(&s.mask);
    let caps = found.next()?;
    if found.next().is_some() || PERSON.is_match(&s.mask) {
        return None;
    }
    let (pre, adv) = (caps.name("pre")?, caps.name("adv")?);
    if NOT_BEFORE.contains(&pre.as_str().trim().to_ascii_lowercase().as_str()) {
        return None;
    }
    let cut = |t: &str| format!("{}{}", &t[..adv.start()], &t[adv.end() + 1..]);
    let stripped = Masked {
        orig: cut(&s.orig),
        mask: cut(&s.mask),
    };
    let c = explicit_request(&stripped)
        .flatten()
        .or_else(|| statement(&stripped))
        .or_else(|| by_shape(&stripped))?;
    if c.topic != MemoryType::Project {
        return None;
    }
    let mut summary = c.summary;
    if adv.as_str().eq_ignore_ascii_case("still") {
        let next = caps.name("next")?.as_str();
        let joined = format!("{}{next}", pre.as_str());
        let restored = format!("{}{} {next}", pre.as_str(), &s.orig[adv.start()..adv.end()]);
        summary = summary.replacen(&joined, &restored, 1);
    }
    Some(Candidate {
        topic: c.topic,
        summary,
        why: c.why,
    })
}

/// "Stack: Flutter for the app, Firebase for auth", "Deploy target: Fly.io, two regions",
/// "Contact for infra questions: Priya in #platform": a short noun label naming a standing
/// aspect of the project, then its value. Labels of the moment or of chat ("Status:", "TODO for
/// today:", "Quick one:", "Error:") and values that are noise stay out.
fn labelled_line(s: &Masked) -> Option<Candidate> {
    static LABEL: LazyLock<Regex> =
        LazyLock::new(|| re(r"^(?P<label>[A-Z][a-z]+(?:[ -][a-z]+){0,3}):\s+(?P<value>\S.*)$"));
    // Words that make a label about the moment, the chat or a failure.
    const MOMENT_LABELS: &[&str] = words::LABELLED_LINE__MOMENT_LABELS;
    static REPORT_WORDS: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:down|broken|failing|fails|stuck|crash(?:es|ing)?|flaky|red|green|slow|done|pending|waiting|tbd|unknown|\d+ ?%)\b",
        )
    });
    if !s.mask.contains(": ") {
        return None;
    }
    // English rules judge an English value only; a CJK value after a Latin label is for the
    // other languages' rules.
    if s.mask.chars().any(|c| c as u32 >= 0x2E80) {
        return None;
    }
    let c = LABEL.captures(s.mask.trim())?;
    let label = c.name("label")?.as_str().to_ascii_lowercase();
    let value = c.name("value")?;
    if label
        .split([' ', '-'])
        .any(|w| MOMENT_LABELS.contains(&w))
        || value.as_str().contains('?')
        || value.as_str().split(' ').count() < 3
        // "Commit message: fix typo in README": a value that is a request or a text to use.
        || starts_with_work_verb(value.as_str())
        || rejected_body(value.as_str())
        || points_at_hand(value.as_str())
        || sentence_is_noise(value.as_str())
    {
        return None;
    }
    // The value must read as a description (a list or a named thing), not a sentence that
    // reports: a past verb in it ("Deploy: failed twice") is a report of the moment; "-ing"
    // words stay, they are mostly nouns here ("Logging: …", "everything else").
    if value.as_str().split(' ').any(|w| {
        let w = w
            .trim_matches(|c: char| !c.is_ascii_alphanumeric())
            .to_ascii_lowercase();
        w.len() > 3 && w.ends_with("ed") && !w.ends_with("eed") && !w.contains('-')
    }) || REPORT_WORDS.is_match(value.as_str())
    {
        return None;
    }
    let lower = value.as_str().to_ascii_lowercase();
    let pointer = label.starts_with("contact")
        || label.contains("owner")
        || label.starts_with("who")
        || label.starts_with("where")
        || label.starts_with("docs")
        || label.contains("link")
        || lower.contains(" #")
        || lower.starts_with('#')
        || lower.contains("url");
    let topic = if pointer {
        MemoryType::Reference
    } else {
        MemoryType::Project
    };
    Some(Candidate {
        topic,
        summary: s.orig.trim().to_string(),
        why: None,
    })
}

/// Log fragments, paths with line numbers, addresses, dense symbols: not a person's statement.
pub(super) fn looks_like_machine_text(s: &Masked) -> bool {
    static MACHINE: LazyLock<Vec<Regex>> = LazyLock::new(|| {
        [
            r"panicked at",
            r"\b\w+(?:Error|Exception)\b:",
            r"\b[\w/.-]+\.[a-z]{1,5}:\d+",
            r"\b0x[0-9a-fA-F]{4,}\b",
            r"\[(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL)\]",
            r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}",
            r"^\s*\$ ",
            r"(?:&&|\|\||::|->|=>|==|!=|\+=|\$\(|\$\{)",
        ]
        .into_iter()
        .map(re)
        .collect()
    });
    if MACHINE.iter().any(|r| r.is_match(&s.mask)) {
        return true;
    }
    let visible = s.mask.chars().filter(|c| !c.is_whitespace()).count();
    symbol_count(&s.mask) * 10 > visible
}

/// Code-like symbols in `text`, not counting those of a language's name ("C++", "g++", "C#",
/// "F#"): "I'm a C++ developer." is 2 symbols in 17 characters, which read as machine text.
fn symbol_count(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    // A name may be followed by a particle in a script without spaces ("C++로", "C#을").
    let ends_word = |i: usize| chars.get(i).is_none_or(|c| !c.is_ascii_alphanumeric());
    let mut count = 0;
    let mut i = 0;
    while i < chars.len() {
        let after_letter = i > 0 && chars[i - 1].is_ascii_alphabetic();
        if after_letter && chars[i] == '+' && chars.get(i + 1) == Some(&'+') && ends_word(i + 2) {
            i += 2;
            continue;
        }
        if after_letter && chars[i] == '#' && ends_word(i + 1) {
            i += 1;
            continue;
        }
        if "{}[]<>=;|\\$&^~#@%+*".contains(chars[i]) {
            count += 1;
        }
        i += 1;
    }
    count
}

/// Conversational lead-ins ("ok,", "also", "btw") are dropped from the summary as well.
fn strip_fillers(s: Masked) -> Masked {
    static FILLER: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:(?:(?:ok|okay|yes|yeah|yep|no|nope|great|cool|nice|thanks|thank you|right|well|alright|all right|hey|hi|hello|oh|actually|one more thing|another thing|got it|understood|perfect|sure|quick one|quick note|heads up|side note|psa|anyway|anyways|honestly|tbh|fwiw|ah|oh and|so yeah|ok so|okay so|hey so|also|and also|one thing|small thing|for context|context|yo|basically|so basically|quick context|some context|more context|background|fyi|just so we're on the same page|to be clear|just to be clear|for the record)\s*[,:!.;-]|(?:also|and|but|so|btw|by the way|plus|oh and|and also|ok so|okay so|hey so|so yeah|hey|honestly|tbh|fwiw|anyway|anyways|for context|heads up|oh|ah and|ah also|yo|so basically|basically|and basically|generally|context|background|before you start|before we start)\s*[,:]?)\s+)+",
        )
    });
    match FILLER.find(&s.mask) {
        Some(m) => s.tail(m.end()).unwrap_or(s),
        None => s,
    }
}

// --- explicit requests ---------------------------------------------------------------------

static EXPLICIT: LazyLock<Regex> = LazyLock::new(|| {
    rei(
        r"^(?P<ask>(?:can|could|would|will) you\s+)?(?:please\s+)?(?:also\s+)?(?P<verb>remember|keep in mind|bear in mind|memori[sz]e|note|save|make a note|take note|don't forget|do not forget|for future reference|for the record|fyi|for your information|just so you know)\b(?P<that>\s+that\b|\s*:|\s*,|\s+(?:to|in) (?:your )?memory(?: that)?\b\s*:?)?\s*[:,\-–—]?\s*",
    )
});

/// `remember to …` is a standing instruction only when it names a recurring situation.
static RECURRENCE: LazyLock<Regex> = LazyLock::new(|| {
    rei(
        r"\b(?:always|never|every|each time|whenever|by default|in general|at all times|anymore|ever|(?:before|after|when|while) (?:each|every|any|you (?:commit|push|merge|release|deploy|open|create|add|change|edit|touch|write|answer|reply|respond)|(?:committing|pushing|merging|releasing|deploying|publishing|shipping|tagging|submitting|opening|creating|sending|answering|responding|replying|editing|changing|deleting|removing|installing|upgrading|adding|touching|modifying|renaming|writing|making)\b))",
    )
});

/// `Some(None)`: an explicit request that yields nothing; `None`: not an explicit request.
fn explicit_request(s: &Masked) -> Option<Option<Candidate>> {
    let caps = EXPLICIT.captures(&s.mask)?;
    let verb = caps.name("verb")?.as_str().to_ascii_lowercase();
    let has_that = caps.name("that").is_some();
    let end = caps.get(0)?.end();
    let rest_mask = s.mask.get(end..)?;
    let asked = caps.name("ask").is_some();
    let needs_marker = matches!(verb.as_str(), "note" | "save" | "make a note" | "take note");
    if needs_marker && !has_that {
        return None; // "note the error", "save the file": work at hand
    }
    if !has_that && rest_mask.to_ascii_lowercase().starts_with("to ") {
        // "remember to …", "don't forget to …": keep the whole instruction as feedback.
        if asked || !matches!(verb.as_str(), "remember" | "don't forget" | "do not forget") {
            return Some(None);
        }
        if s.mask.contains('?') || !RECURRENCE.is_match(rest_mask) || rejected(s) {
            return Some(None);
        }
        let (main, why) = split_why(s);
        return Some(Some(Candidate {
            topic: MemoryType::Feedback,
            summary: main.orig.trim().to_string(),
            why,
        }));
    }
    let mut rest = s.tail(end)?;
    if asked {
        // "Can you remember that my name is Dana?" asks to store the statement.
        if let Some(stripped) = rest.orig.strip_suffix('?') {
            let n = stripped.len();
            rest = rest.head(n)?;
        }
    }
    if rest.mask.contains('?') || rest.mask.trim().split(' ').count() < 3 || rejected(&rest) {
        return Some(None);
    }
    let rest = strip_time_phrases(rest);
    let (main, why) = split_why(&rest);
    let topic = classify(&main).or_else(|| default_topic(&main));
    Some(topic.map(|topic| Candidate {
        topic,
        summary: main.orig.trim().to_string(),
        why,
    }))
}

/// For an explicitly requested statement no rule recognized: who it is about.
fn default_topic(s: &Masked) -> Option<MemoryType> {
    static ABOUT_USER: LazyLock<Regex> = LazyLock::new(|| rei(r"^(?:i|i'm|i've|i'd|my|me)\b"));
    static ABOUT_YOU: LazyLock<Regex> = LazyLock::new(|| rei(r"^(?:you|your)\b"));
    static STATEMENT: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:is|are|am|was|were|has|have|do|does|don't|doesn't|can|can't|cannot|must|should|will|won't|[a-z]{3,}s)\b",
        )
    });
    let m = s.mask.trim();
    if starts_with_work_verb(m) {
        return None;
    }
    if ABOUT_USER.is_match(m) {
        Some(MemoryType::User)
    } else if ABOUT_YOU.is_match(m) {
        Some(MemoryType::Feedback)
    } else if STATEMENT.is_match(m) {
        Some(MemoryType::Project)
    } else {
        None
    }
}

// --- statements ----------------------------------------------------------------------------

fn statement(s: &Masked) -> Option<Candidate> {
    if s.mask.contains('?') {
        return None;
    }
    let before = s.mask.len();
    let s = strip_time_phrases(s.clone());
    // "Going forward, keep handlers thin": the phrase itself makes the imperative standing.
    let standing = s.mask.len() < before;
    if let Some(c) = conditional(&s) {
        return c;
    }
    if rejected(&s) {
        return None;
    }
    let (main, why) = split_why(&s);
    if main.mask.trim().split(' ').count() < 3 {
        return None;
    }
    let topic = classify(&main).or_else(|| {
        let m = main.mask.trim();
        (standing && starts_with_work_verb(m) && !object_is_pronoun(m))
            .then_some(MemoryType::Feedback)
    })?;
    Some(Candidate {
        topic,
        summary: main.orig.trim().to_string(),
        why,
    })
}

/// "When writing SQL, always use parameterized queries.": a leading condition followed by a
/// durable main clause. The summary keeps the condition. `None` when there is no such lead.
fn conditional(s: &Masked) -> Option<Option<Candidate>> {
    static LEAD: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:when|whenever|if|while|for|in|on|before|after|outside|inside|within|across|every time|each time|any time|anytime)\s+[^,]{3,60},\s+",
        )
    });
    let m = LEAD.find(&s.mask).filter(|m| !lead_has_verb(m.as_str()))?;
    let main = s.tail(m.end())?;
    if rejected_body(s.mask.trim()) || rejected_opening(main.mask.trim()) {
        return Some(None);
    }
    let (whole, why) = split_why(s);
    let (main_only, _) = split_why(&main);
    if main_only.mask.trim().split(' ').count() < 3 {
        return Some(None);
    }
    let topic = classify(&main_only).or_else(|| recurring_imperative(s, &main_only))?;
    Some(Some(Candidate {
        topic,
        summary: whole.orig.trim().to_string(),
        why,
    }))
}

/// "In this codebase errors are wrapped …, never …": a scope lead ("In the backend, …") has no
/// verb of its own; with one it is the sentence's own clause.
fn lead_has_verb(lead: &str) -> bool {
    static FINITE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:for|in|on|across|with|inside|within|outside)\s.*\b(?:is|are|was|were|has|have|must|should|will|can)\s",
        )
    });
    FINITE.is_match(lead)
}

/// "When you change a public API, update the changelog as well": the lead names a situation
/// that comes back (the user doing a kind of work, not a moment of this task), so a plain
/// imperative after it is a standing instruction.
fn recurring_imperative(whole: &Masked, main: &Masked) -> Option<MemoryType> {
    static RECURRING_LEAD: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:when|whenever|every time|each time|any time|anytime|before|after)\s+(?:you\s+|we\s+|i\s+|someone\s+|anyone\s+)?(?:\w+ing|add|adds|change|changes|touch|touches|write|writes|create|creates|open|opens|edit|edits|modify|modifies|remove|removes|delete|deletes|rename|renames|bump|bumps|upgrade|upgrades|release|releases|deploy|deploys|commit|commits|push|pushes|merge|merges|fix|fixes|update|updates|introduce|introduces|review|reviews|publish|publishes|generate|generates)\b[^,]*,",
        )
    });
    static POINTER: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:it|this|that|these|those|them)\b|\bthe (?:pr|pull request|branch|ticket|fix|change|migration|build|deploy|release|patch|commit|issue|bug|test)\b",
        )
    });
    static TRAILING_TOO: LazyLock<Regex> =
        LazyLock::new(|| rei(r"\s+(?:as well|too|also)\s*[.!]?$"));
    static ALSO: LazyLock<Regex> = LazyLock::new(|| rei(r"^(?:also|then|always)\s+"));
    let lead = RECURRING_LEAD.find(&whole.mask)?;
    let main_mask = main.mask.trim();
    let main_mask = ALSO.replace(main_mask, "");
    // A pronoun can point back at what the lead names ("When you add a migration, add it to the
    // changelog"); after a lead without an object ("After testing, commit it") it points at the
    // work at hand.
    let lead_names_object = lead.as_str().split(' ').count() >= 4;
    if POINTER.is_match(lead.as_str())
        || !starts_with_work_verb(&main_mask)
        || main_mask.contains('?')
        || rejected_opening(&main_mask)
        || rejected_body(&TRAILING_TOO.replace(&main_mask, "."))
        || (!lead_names_object && object_is_pronoun(&main_mask))
    {
        return None;
    }
    Some(MemoryType::Feedback)
}

/// "From now on, …" / "… going forward." mark a standing rule; the phrase itself is dropped
/// (it would also trip the `now` filter).
fn strip_time_phrases(s: Masked) -> Masked {
    static LEAD: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:from now on|going forward|moving forward|in (?:the )?future|henceforth|from here on(?: out)?|in general|as a rule|generally speaking|by default)\s*[,:]?\s+",
        )
    });
    static TRAIL: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r",?\s+(?:from now on|going forward|moving forward|in (?:the )?future|henceforth|from here on(?: out)?)(?P<end>[.!]?)$",
        )
    });
    let s = match LEAD.find(&s.mask) {
        Some(m) => s.tail(m.end()).unwrap_or(s),
        None => s,
    };
    let Some(caps) = TRAIL.captures(&s.mask) else {
        return s;
    };
    let (Some(all), Some(end)) = (caps.get(0), caps.name("end")) else {
        return s;
    };
    let end = end.as_str().to_string();
    match s.head(all.start()) {
        Some(mut h) => {
            h.orig.push_str(&end);
            h.mask.push_str(&end);
            h
        }
        None => s,
    }
}

/// Rejections that hold whatever the shape: requests, questions, the moment, the work at hand,
/// narration, hedging, reports of state.
fn rejected(s: &Masked) -> bool {
    let m = s.mask.trim();
    rejected_opening(m) || rejected_body(m)
}

/// Requests and questions by their opening words.
fn rejected_opening(m: &str) -> bool {
    // "I know Go well": what the user knows, not "I know, …".
    static KNOWS: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^i know [\w.+#-]+(?:\s+and\s+[\w.+#-]+)? (?:well|pretty well|very well|inside out|quite well)\b",
        )
    });
    if KNOWS.is_match(m) {
        return false;
    }
    static OPENING: LazyLock<Vec<Regex>> = LazyLock::new(|| {
        [
            r"^(?:please\s+)?(?:let's|lets|let us|let me|can you|could you|would you|will you|won't you|can't you|can we|could we|should we|shall we|would it|is it|are you|do you|did you|have you|i'll|i will|i'm going to|i am going to|we're going to|we are going to|we'll|we will|you'll|go ahead|try|now|next|then|first|finally|afterwards|after that|okay|ok|i think|i guess|i believe|i feel|i hope|i wonder|i mean|i meant|i see|i know|it's|it is|that's|that is|this is|there's|there is|there are|here's|here is|what|why|how|where|who|which|whose|when|is|are|do (?:you|we|i|it|they|this|that|these|those|the|our|your|my|he|she|there|any)|does|did|was|were|has|had|have|am|if|once|hmm|hm|wow|oops|sorry|lol|never mind|nevermind|not sure|i'm not sure|no idea)\b",
            r"^(?:please\s+)?(?:i|we) (?:need|have|got) to\s+(?P<next>\w+)",
            r"^(?:please\s+)?i(?: really)? (?:want|need|'d like|would like|'d love|would love) (?:you )?to\s+(?P<next>\w+)",
            r"^(?:please\s+)?i(?: really)? (?:want|need|'d like|would like) (?:a|an|the|some|to see|to know)\b",
            r"^you (?:need|have|should|must|can|could|might|may|will|would)(?:\s+to)?\s+(?P<next>\w+)",
            // "We should talk about …": a suggestion unless a marker makes it a rule.
            r"^(?:we|the team|everyone) (?:should|could|might|would|can|may|ought to)\s+(?P<next>\w+)",
        ]
        .into_iter()
        .map(rei)
        .collect()
    });
    OPENING.iter().any(|r| match r.captures(m) {
        // "we need to always …", "you should never …": a standing rule, judged later.
        Some(c) => !c.name("next").is_some_and(|w| {
            matches!(
                w.as_str().to_ascii_lowercase().as_str(),
                "always" | "never" | "not" | "only"
            )
        }),
        None => false,
    })
}

/// The moment, the work at hand, narration, hedging, reports of state — anywhere in the text.
fn rejected_body(m: &str) -> bool {
    static BODY: LazyLock<Vec<Regex>> = LazyLock::new(|| {
        [
            // The moment (a superset of the filter's words).
            r"\b(?:today|tonight|tomorrow|yesterday|now|currently|current|temporary|temporarily|for this task|this session|at the moment|for the moment|for the time being|just now|so far|this time|last time|next time|earlier|later|again|yet|soon|at this point|this (?:week|morning|afternoon|evening|sprint|month|release|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|right away|asap|immediately|still)\b",
            // Pointers into the work at hand.
            r"\b(?:this|that|these|those) (?:file|files|function|functions|method|methods|class|test|tests|bug|bugs|error|errors|issue|issues|pr|prs|pull request|commit|commits|diff|patch|change|changes|line|lines|snippet|code|output|log|logs|message|task|one|ones|step|page|component|module|script|query|endpoint|variable|loop|case|failure|warning|warnings|problem|approach|solution|fix|version|part|section|thing|things|stuff|run|build|branch|command|call|example|point|idea|feature|refactor|migration|ticket|job|folder|directory|way|mess|screen|window|tab|crate|package|dependency)\b",
            r"\b(?:the|your|my|our) (?:failing|broken|above|previous|last|latest|next|same|new|current|following|other|remaining|old|second|third|earlier|original) (?-i:[^A-Z])",
            r"\b(?:above|below|here|there|instead of it|as well)$",
            r"\b(?:above|below|here)\b",
            r"\b(?:when|once|after) (?:you're|you are|you've|you have|it's|it is|that's|we're|we are|i'm) (?:done|finished|ready|through|back)\b",
            // Narration of what just happened.
            r"\b(?:you|i|we) (?:just|already|recently)\b",
            r"\byou(?:'ve| have)? (?:did|made|wrote|changed|broke|added|removed|forgot|missed|deleted|introduced|used|got|said|told|ran)\b",
            r"^(?:i|we|you|it|they|he|she) (?:\w*[^e\W]ed|was|were|had|did|got|made|saw|ran|wrote|found|tried|went|said|told|broke|forgot|thought|knew|took|gave|put|set|left|sent|built|came|began|chose|fell|heard|lost|meant|paid|read|sat|sold|spent|stood|understood|won)\b",
            r"^(?:i'm|i am|we're|we are|you're|you are|it's|they're|he's|she's) \w+ing\b",
            // Hedging.
            r"\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|i suppose|not sure|i wonder|kind of|sort of|somehow)\b",
            r"\bmust(?: not|n't)? have (?:been|\w+ed|\w+en)\b",
            r"^we need (?:a|an|some|more|better|another|something)\b",
            r"\bkeeps? (?:on )?\w+ing\b",
            // A defect of something at hand.
            r"\b(?:has|have|had) (?:a|an|some|another) (?:bug|leak|memory leak|problem|issue|typo|regression|race|race condition|deadlock|off-by-one)\b",
            // Reports of state.
            r"\b(?:is|are|was|were|seems?|looks?|keeps?|got|gets|getting|been|became|becomes)\s+(?:\w+\s+)?(?:failing|broken|flaky|down|red|green|slow|stuck|wrong|outdated|missing|fixed|done|working|hanging|crashing|timing out|empty|gone|weird|off|fine|great|good|bad|better|worse|annoying|confusing|unclear|nice)\b",
            r"\b(?:fails|failed|crashed|crashes|broke|hangs|hung|timed out|times out|doesn't work|does not work|didn't work|isn't working|won't compile|doesn't compile|does not compile)\b",
            r"\b(?:no worries|looks good|sounds good|makes sense|good job|great job|well done|thank you|thanks)\b",
            r"\b(?:never mind|nevermind)\b",
            // Reports in chat shapes: a server error, a resource running out, a rough count,
            // laughter, a moment in the user's day.
            r"\breturns? (?:an? |http |status )?5\d\d\b|\bstuck\b|\bout of (?:disk|memory|space|quota)\b|\blike \d|\ba lot of (?:ram|memory|cpu|disk|time|space)\b|\b(?:lol|lmao|haha|rofl|ugh|omg|wtf|brb)\b|\b(?:after|before) (?:lunch|the meeting|standup|my meeting)\b|\bin (?:a bit|a sec)\b|\b(?:back|brb|there|ready|done|free|online|offline|out) in (?:a minute|an hour|\w+ (?:min|mins|minutes|hours?))\b",
        ]
        .into_iter()
        .map(rei)
        .collect()
    });
    static VERSION_RANGE: LazyLock<Regex> =
        LazyLock::new(|| rei(r"(\d[\w.]*)\s+(?:and|or)\s+(?:later|newer|higher|above|up)\b"));
    // "I'm still learning Rust", "we're using Postgres 15": standing, not the moment.
    static STANDING_PROGRESSIVE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i:\b(?:i'm|i am) still (?:learning|new to|getting used to)\b)|(?i:^(?:we're|we are) (?:using|running|on) (?:\w+ ){0,2}?)(?-i:[A-Z0-9])|(?i:^we (?:all )?(?:agreed|decided) (?:to|that|on) )|(?i:^(?:we're|we are) (?:following|standardi[sz]ed on) (?:the|our|an?) (?:[\w.+#/-]+ ){0,3}?(?:architecture|pattern|patterns|guide|guidelines|style|style guide|conventions?|standards?|spec|process|approach|model|principles|methodology|workflow|rules)\b)|(?i:^(?:we're|we are) (?:following|targeting|standardi[sz]ed on) )(?-i:[A-Z0-9])",
        )
    });
    let m = VERSION_RANGE.replace_all(m, "$1 plus");
    // "trains on the last 90 days of events": a rolling window, not the last thing at hand.
    static WINDOW: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\bthe (?:last|past|latest|first|next) (?:\d+|two|three|four|five|six|ten|few|couple of) (?:[\w-]+ )?(?:days|weeks|months|hours|minutes|seconds|years|commits|releases|versions|steps|epochs|runs|items|entries|lines|characters|records|builds|tags)\b",
        )
    });
    let lower = m.to_ascii_lowercase();
    let m = if has_any(&lower, words::REJECTED_BODY__ORDINAL) {
        WINDOW.replace_all(&m, "a window").into_owned()
    } else {
        m.into_owned()
    };
    static AROUND: LazyLock<Regex> = LazyLock::new(|| rei(r"\b(?:not )?the other way a?round\b"));
    // "update the docstring in the same commit": the one that makes the change, not one at hand.
    static SAME_STEP: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:in|with) the same (?:commit|pr|pull request|change|changeset|release|step|diff)\b",
        )
    });
    let m = if lower.contains("the same ") {
        SAME_STEP.replace_all(&m, "together").into_owned()
    } else {
        m
    };
    let m = if lower.contains("other way") {
        AROUND.replace_all(&m, "reversed").into_owned()
    } else {
        m
    };
    // "marked @slow": a label in the code, not the state of something.
    static AT_LABEL: LazyLock<Regex> = LazyLock::new(|| {
        rei(r"\b(?:marked|tagged|labell?ed|flagged|annotated) (?:as |with )?@[\w-]+")
    });
    let m = if m.contains('@') {
        AT_LABEL.replace_all(&m, "labelled X").into_owned()
    } else {
        m
    };
    let m = STANDING_PROGRESSIVE.replace(&m, "standing ");
    static SWITCHED_STACK: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i:^we(?:'ve| have)? (?:(?:switched|migrated|upgraded|standardi[sz]ed)\s+(?:[\w.+#/-]+\s+){0,5}?|(?:moved|changed|converted)\s+(?:(?:all|our|every|everything)\s+(?:[\w.+#/-]+\s+){0,4}?|(?:[\w.+#/-]+\s+){0,3}?from\s+\S+\s+))(?:to|onto|over to)\s+)(?-i:[A-Z0-9])(?i:[\w.+#-]*)",
        )
    });
    let m = SWITCHED_STACK.replace(&m, "standing ");
    BODY.iter().any(|r| r.is_match(&m)) || filter::is_temporary(&m)
}

/// Splits off a `because …` / `since …` reason: `(main clause, why)`. The main clause keeps the
/// sentence's closing `.`/`!`.
pub(super) fn split_why(s: &Masked) -> (Masked, Option<String>) {
    static LEAD: LazyLock<Regex> = LazyLock::new(|| rei(r"^(?:because|since) [^,]{6,}?, "));
    static MID: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"(?:,?\s+because(?: of)?\s+|,\s*since\s+|\s+since\s+(?:the|it|its|it's|we|we're|our|they|they're|their|these|those|a|an|all|most|many|some|you|your|i|i'm|my|he|she|everyone|nobody|no|every|each|any|other|both|only|one)\b)",
        )
    });
    // "Run fmt before committing; CI rejects unformatted code": a clause after a semicolon
    // that states a fact explains the rule before it.
    static SEMI: LazyLock<Regex> = LazyLock::new(|| re(r";\s+"));
    let terminal = s
        .orig
        .trim_end()
        .chars()
        .last()
        .filter(|c| matches!(c, '.' | '!'));
    if let Some(m) = LEAD.find(&s.mask) {
        let lead_word = s.mask.find(' ').unwrap_or(0);
        if let (Some(main), Some(why)) = (s.tail(m.end()), s.orig.get(lead_word + 1..m.end() - 2)) {
            if main.mask.split(' ').count() >= 3 {
                return (main, Some(why.trim().to_string()));
            }
        }
    }
    let Some(m) = MID.find(&s.mask).or_else(|| SEMI.find(&s.mask)) else {
        return (s.clone(), None);
    };
    if let (Some(mut main), Some(why_start)) = (s.head(m.start()), s.tail(m.end())) {
        let why = why_start.orig.trim().to_string();
        let lead = main
            .orig
            .trim_end_matches([',', ';', ':', ' ', '-', '–', '—'])
            .len();
        if why.split(' ').count() >= 2 && lead > 0 {
            if let Some(mut trimmed) = main.head(lead) {
                if let Some(t) = terminal {
                    trimmed.orig.push(t);
                    trimmed.mask.push(t);
                }
                main = trimmed;
                return (main, Some(why));
            }
        }
    }
    (s.clone(), None)
}

// --- topic rules ---------------------------------------------------------------------------

/// The topic of a durable statement, or `None` when the sentence has no durable shape.
fn classify(s: &Masked) -> Option<MemoryType> {
    let m = s.mask.trim();
    if let Some(t) = reference(s) {
        return Some(t);
    }
    if FEEDBACK_VIA_USER.iter().any(|r| r.is_match(m)) {
        return Some(MemoryType::Feedback);
    }
    if user_fact(s) {
        return Some(MemoryType::User);
    }
    if instruction(m) {
        return Some(MemoryType::Feedback);
    }
    if project_rule(s) {
        return Some(MemoryType::Project);
    }
    None
}

/// Nouns naming places where knowledge lives.
const RESOURCE: &str = r"(?:runbooks?|dashboards?|docs|documentation|checklists?|templates?|wiki|wiki page|tickets?|bugs|issues|tasks|incidents|tracker|board|specs?|specification|design docs?|playbooks?|on-call (?:schedule|rotation)|schedule|changelog|roadmap|adrs?|decisions|grafana|kibana|sentry|datadog|logs|metrics|alerts|api reference|reference|style guide|guidelines|conventions|diagrams?|postmortems?|incident reports|release notes|status page|handbook|faq|onboarding guide|contributing guide|errors|exceptions|crash reports|traces|feature flags|secrets|credentials|questions|requests|bug reports|feature requests|support tickets|access requests)";

fn reference(s: &Masked) -> Option<MemoryType> {
    static URL_LINK: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:is|are|lives?|sits?|can be found|located|hosted|kept|documented|tracked|published|available|reported|filed|collected|shown|listed|described|explained|stored|at|under|via)\b|:\s*URLx|^(?:see|check) URLx|\bsee URLx",
        )
    });
    static ONE_OFF_URL: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"/(?:pull|pulls|merge_requests|commit|commits|compare|runs|jobs|builds|pipelines|actions/runs|blob/[0-9a-f]{7,})/",
        )
    });
    static LOCATION: LazyLock<Regex> = LazyLock::new(|| {
        rei(&format!(
            r"^(?:(?:the|our|all|team|every|each|any|most)\s+)?(?:[\w-]+\s+){{0,3}}?{RESOURCE}\b.*?\b(?:is|are|live|lives|sit|sits|can be found|is kept|are kept|is documented|are documented|is tracked|are tracked|is filed|are filed|is reported|are reported|go|goes|get filed|get reported|is hosted|are hosted|is stored|are stored|is published|are published|is collected|are collected|is listed|are listed|is pinned|are pinned)\s+(?:only\s+)?(?:at|in|on|under|to|through|via|inside)\b"
        ))
    });
    static SEE_FOR: LazyLock<Regex> = LazyLock::new(|| {
        rei(&format!(
            r"^(?:for|about) (?:[\w-]+\s+){{0,4}}?\w+,\s*(?:see|check|read|consult|look at) (?:the |our )?(?:[\w/.-]+\s+){{0,3}}?(?:{RESOURCE}|URLx+)"
        ))
    });
    // "See docs/architecture.md for how the modules fit together".
    static SEE_PATH: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:see|check|read|consult|refer to)\s+(?:the\s+)?(?:[\w.-]+/[\w./-]*|[\w-]+\.(?:md|rst|txt|adoc|pdf|org))\s+(?:for|about|when|whenever|before)\b",
        )
    });
    // "Ask Maria about anything related to billing": a person to go to.
    static ASK_PERSON: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i:^(?:please\s+)?(?:ask|ping|talk to|check with))\s+(?-i:@?[A-Z][\w-]+)(?i:\s+(?:about|for|on|with)\s+(?:anything|everything|all|any|questions)\b)",
        )
    });
    // "Error codes are documented in docs/errors.md", "Helm charts live in a separate
    // repository": where to read or find something, not how the project works.
    static DOCUMENTED_AT: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:is|are) (?:all\s+)?(?:documented|described|explained|specified|listed|defined|written up|summari[sz]ed|written down|recorded) (?:in|at|on|under)\s+(?:[\w.-]+/[\w./-]*|[\w-]+\.(?:md|rst|txt|adoc|pdf|org)|the (?:wiki|handbook|readme|docs|runbook|design doc|spec)\b|the [\w-]+ (?:repo|repository|wiki|space|folder|drive)\b)",
        )
    });
    static ELSEWHERE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:lives?|is kept|are kept|is stored|are stored|sits?|is|are|is hosted|are hosted) in (?:a |the |our |its )?(?:separate|different|another|shared|dedicated|own|other) (?:[\w-]+ )?(?:repo|repository|bucket|drive|wiki|space|project|workspace|org|organization|package|module|library|crate|gem)\b",
        )
    });
    // "Our threat model doc lives at security/threat-model.md": a document found at a path
    // ("The API doc is in English" names a language, not a place).
    static DOC_AT_PATH: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:the|our)\s+(?:[\w-]+\s+){0,3}?(?:doc|document|spec|guide|notes|write-up|writeup)\s+(?:lives?|is|sits?|is kept)\s+(?:at|in|under)\s+(?:[\w.-]+/[\w./-]*|[\w-]+\.(?:md|rst|txt|adoc|pdf))",
        )
    });
    // "Our Figma library is the source of truth for spacing": where the truth is kept.
    static TRUTH_IN: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:the|our)\s+(?:[\w-]+\s+){0,2}?(?:figma|notion|confluence|wiki|jira|linear|airtable|spreadsheet|sheet|handbook|drive|storybook|backstage)\b.*\b(?:is|are) (?:the|our) (?:single |only |one )?source of truth\b",
        )
    });
    // "Our API style guide is the Zalando one": a guide named by whose it is.
    static GUIDE_IS: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i:^(?:the|our)\s+(?:[\w-]+\s+){0,2}?(?:style guide|guidelines|conventions|coding standard|spec|specification|handbook|playbook)\s+(?:we follow\s+)?is\s+(?:the\s+)?)[A-Z][\w.-]*(?:'s|\s+one\b)",
        )
    });
    let m = s.mask.trim();
    let lower = m.to_ascii_lowercase();
    if has_any(&lower, words::REFERENCE__GUIDE) && GUIDE_IS.is_match(m) && !only_deictic(m) {
        return Some(MemoryType::Reference);
    }
    if m.to_ascii_lowercase().contains("source of truth") && TRUTH_IN.is_match(m) {
        return Some(MemoryType::Reference);
    }
    let path_like = m.contains('/')
        || m.split(' ')
            .any(|w| w.trim_end_matches(['.', ',', ';', '!']).contains('.'));
    if path_like && DOC_AT_PATH.is_match(m) {
        return Some(MemoryType::Reference);
    }
    if SEE_PATH.is_match(m)
        || ASK_PERSON.is_match(m)
        || DOCUMENTED_AT.is_match(m)
        || ELSEWHERE.is_match(m)
    {
        return Some(MemoryType::Reference);
    }
    if s.has_url() {
        if ONE_OFF_URL.is_match(&s.orig) || starts_with_work_verb(m) {
            return None;
        }
        return URL_LINK.is_match(m).then_some(MemoryType::Reference);
    }
    // "The design doc is in review": a state, not a place.
    static IN_STATE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:is|are) (?:still )?in (?:review|progress|draft|qa|testing|flight|limbo|beta|alpha)\b",
        )
    });
    ((LOCATION.is_match(m) && !IN_STATE.is_match(m)) || SEE_FOR.is_match(m))
        .then_some(MemoryType::Reference)
}

/// "I prefer that you …": a preference about the assistant's behaviour.
static FEEDBACK_VIA_USER: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"^i(?:'d| would)?(?: really| strongly| much)? (?:prefer|rather|like|love|hate|dislike|don't like|do not like|can't stand|cannot stand|appreciate|want|expect)(?: it)? (?:(?:when|if|that) )?you\b",
        r"^i (?:want|need|'d like|would like|expect) you to (?:always|never)\b",
        // "I want all new code to have type hints": a wish about every instance of a kind.
        r"^i(?:'d| would)? (?:really )?(?:want|like|expect|need|prefer) (?:all|every|each|any|no)\s+(?:[\w.+#-]+\s+){0,3}?[\w.+#-]+\s+to\s+\w+",
        r"^(?:it's|it is) (?:important|essential|crucial) (?:to me )?that you (?:always|never)\b",
    ]
    .into_iter()
    .map(rei)
    .collect()
});

const ROLE: &str = r"(?:engineer|developer|dev|programmer|designer|student|researcher|scientist|manager|maintainer|lead|architect|admin|administrator|sre|devops|beginner|newcomer|novice|contractor|consultant|intern|founder|cto|ceo|analyst|writer|tester|hobbyist|expert|teacher|professor|freelancer|owner|mathematician|physicist|statistician|specialist|user|fan|dba|qa|pm)";

fn user_fact(s: &Masked) -> bool {
    static USER: LazyLock<Vec<Regex>> = LazyLock::new(|| {
        [
            r"^i(?:'d| would)?(?: really| strongly| generally| usually| much)? (?:prefer|like|love|enjoy|hate|dislike|don't like|do not like|can't stand|cannot stand)\s+(?P<next>\w+(?:\s+\w+)?)",
            r"^my (?:preferred|favou?rite|main|primary|usual|default|go-to|native|first|daily) [\w .+#/-]{1,40}?\b(?:is|are)\b",
            r"^my (?:name|role|title|job|job title|timezone|time zone|background|pronouns|github (?:handle|username)|username|handle|team|native language|first language|os|operating system|editor|ide|shell|terminal|keyboard layout|setup|laptop|machine|workstation|employer|company|manager|expertise|specialty|focus) (?:is|are)\b",
            &format!(r"^i(?:'m| am) (?:a|an|the|one of the)\s+(?:[\w+#.-]+\s+){{0,3}}?{ROLE}s?\b"),
            &format!(r"^i(?:'m| am) (?:more of|mostly|mainly|primarily|really) (?:a|an)\s+(?:[\w+#.-]+\s+){{0,2}}?(?:{ROLE}|person|guy|type)s?\b"),
            r"^i(?:'m| am) (?:(?:very|quite|pretty|fairly|really|not|not very|not really|more|mostly|an?)\s+)*(?:new to|familiar with|comfortable with|experienced (?:with|in)|fluent in|proficient (?:with|in)|expert in|beginner (?:with|in|at)|colou?r[- ]?blind|left-handed|based in|located in|on the [\w -]+ team|in charge of|responsible for|the (?:maintainer|owner|author|lead|tech lead) of|visually impaired|dyslexic|deaf|blind|using a screen reader|allergic to|vegetarian|vegan)\b",
            r"^i (?:work|live|code|program|develop) (?:on|in|at|for|as|with|from|mostly|mainly|primarily|remotely|part-time|full-time)\b",
            r"^i (?:mostly|mainly|primarily|usually|normally|typically|generally|always|never|rarely|often|only|tend to|prefer to|like to)\s+(?P<next>\w+)",
            r"^i (?:use|run) [\w .+#/-]{2,40}? (?:as my|for (?:all|every|most|my))\b",
            r"^i (?:speak|read|write) (?:english|french|german|spanish|portuguese|italian|dutch|polish|russian|chinese|mandarin|japanese|korean|hindi|arabic|turkish|swedish)\b",
            r"^i have (?:\w+ )?(?:years?|decades?|months?) of (?:[\w-]+ )?experience\b",
            r"^i(?:'ve| have) been (?:\w+ing) [\w .+#/-]{2,40}? for (?:\w+ )?(?:years|decades|months)\b",
            r"^i (?:don't|do not|never|rarely) (?:use|like|read|write|speak|enjoy|code in|work (?:on|with|in))\b",
            r"^call me [A-Z]\w*\b",
            r"^i come from an? [\w.+#-]+(?:\s+[\w.+#-]+)? background\b",
            r"^i(?:'ve| have) never (?:used|worked with|worked in|written|touched|deployed|programmed in|coded in|set up)\b",
            r"^i know [\w.+#-]+(?:\s+and\s+[\w.+#-]+)? (?:well|pretty well|very well|inside out|quite well)\b",
            r"^i(?:'m| am) still (?:learning|new to|getting used to)\b",
            // What the user looks after: "I maintain the Android app", "I own the billing service".
            r"^i (?:maintain|own|lead|manage|look after|am responsible for)\s+(?:the|our|both|all|most of)\s+\w",
            r"^i do (?:most|all|much|the bulk) of my (?:work|coding|editing|development|programming|reviews?|reviewing|debugging)\b",
            // "Python isn't my strongest language", "CSS is not my strong suit".
            r"^[\w.+#/-]+(?:\s+[\w.+#/-]+)?\s+(?:is|isn't|is not|are|aren't|are not)\s+(?:really\s+|exactly\s+)?my\s+(?:strongest|weakest|strong|main|primary|first|native|best|favou?rite|daily)\s+(?:language|languages|skill|skills|area|suit|point|tool|editor|stack)\b",
            r"^i(?:'m| am) on (?:macos|mac|a mac|osx|linux|windows|wsl|ubuntu|debian|fedora|arch|nixos|an? (?:mac|macbook|linux|windows|chromebook|thinkpad))\b",
        ]
        .into_iter()
        .map(rei)
        .collect()
    });
    // "I like the version with the early return better": a choice among alternatives at hand.
    static CHOICE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^i\b.*\b(?:better|best|the (?:[\w-]+ )?(?:version|one|option|approach|variant|draft|proposal|suggestion|solution|alternative))\b",
        )
    });
    // "I'd like a second opinion": a request, not a taste.
    static WOULD_LIKE: LazyLock<Regex> =
        LazyLock::new(|| rei(r"^i(?:'d| would) (?:really )?(?:like|love)\b"));
    let m = s.mask.trim();
    // "I don't like how this looks": a reaction to the thing at hand.
    static REACTION: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^i (?:don't|do not|really)? ?(?:like|love|hate|dislike|enjoy)\b.*\b(?:this|that|it|these|those|how)\b",
        )
    });
    if CHOICE.is_match(m) || WOULD_LIKE.is_match(m) || REACTION.is_match(m) {
        return false;
    }
    USER.iter().any(|r| match r.captures(m) {
        Some(c) => c
            .name("next")
            .is_none_or(|w| !is_deictic_or_past(w.as_str())),
        None => false,
    })
}

fn starts_with_scope(m: &str) -> bool {
    static SCOPE: LazyLock<Regex> =
        LazyLock::new(|| rei(r"^(?:in|for|on|across|within|inside|with)\s"));
    SCOPE.is_match(m)
}

/// Imperatives that begin a one-off request unless a durable shape says otherwise.
fn starts_with_work_verb(m: &str) -> bool {
    static WORK: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:just\s+)?(?:fix|rename|look|run|rerun|re-run|retry|check|try|add|remove|delete|update|change|make|write|create|implement|refactor|show|tell|explain|help|open|read|move|revert|undo|commit|push|pull|install|build|test|debug|investigate|find|search|continue|go|proceed|stop|start|begin|do|give|send|put|set|replace|rewrite|clean|format|review|merge|rebase|bump|upgrade|downgrade|split|extract|inline|document|describe|summarize|summarise|list|print|log|deploy|release|generate|compile|port|convert|migrate|skip|ignore|disable|enable|wait|hold|use|keep|save|note|see|let|get|bring|pick|choose|call|copy|paste|draft|sketch|outline|plan|prepare|finish|complete|close|resolve|handle|patch|comment|uncomment|restart|reload|reset|clear|drop|edit|modify|adjust|tweak|improve|optimize|optimise|speed|simplify|cleanup|double-check|verify|confirm|ensure|compare|measure|profile|benchmark|trace|inspect|analyze|analyse|fetch|download|upload|grep|cat|ls|cd|npm|cargo|git|make sure|answer|reply|respond|register|regenerate|rebuild|recompile|notify|ping|announce|attach|include|link|tag|label|assign|squash|sign|mention|bump|annotate|wrap|prefix|mark|flag|leave)\b",
        )
    });
    WORK.is_match(m)
}

/// Objects that point at the work at hand ("run it", "use this").
const OBJECT_PRONOUNS: &[&str] = words::OBJECT_PRONOUNS;

/// Whether the imperative at the start of `m` takes a pronoun object ("fix it", "please run
/// that again"): the work at hand.
fn object_is_pronoun(m: &str) -> bool {
    m.split(' ')
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_ascii_lowercase()
        })
        .filter(|w| !matches!(w.as_str(), "please" | "just" | "also"))
        .nth(1)
        .is_some_and(|w| OBJECT_PRONOUNS.contains(&w.as_str()))
}

/// Whether `re` matches and its `next` group is not one of `deny` (the regex crate has no
/// lookahead, so the exclusion is done here).
fn next_word_ok(re: &Regex, m: &str, deny: &[&str]) -> bool {
    re.captures(m).is_some_and(|c| {
        c.name("next")
            .is_none_or(|w| !deny.contains(&w.as_str().to_ascii_lowercase().as_str()))
    })
}

fn marked_imperative(re: &Regex, m: &str) -> bool {
    static RELATIVE: LazyLock<Regex> =
        LazyLock::new(|| rei(r"\b(?:that|which|who|whose|where|so|until|sure)\b"));
    re.captures(m).is_some_and(|c| {
        let next = c
            .name("next")
            .map(|w| w.as_str().to_ascii_lowercase())
            .unwrap_or_default();
        let mid = c.name("mid").map_or("", |w| w.as_str());
        !OBJECT_PRONOUNS.contains(&next.as_str())
            && !RELATIVE.is_match(&next)
            && !RELATIVE.is_match(mid)
    })
}

/// For "I like …" / "I usually …": the next words point at the work at hand or narrate.
fn is_deictic_or_past(next: &str) -> bool {
    let lower = next.to_ascii_lowercase();
    let mut words = lower.split_whitespace();
    let first = words.next().unwrap_or_default();
    let second = words.next().unwrap_or_default();
    const DENY: &[&str] = words::IS_DEICTIC_OR_PAST__DENY;
    DENY.contains(&first)
        || (first == "to" && matches!(second, "see" | "know" | "have" | "get" | "try"))
        || (first.len() > 3 && first.ends_with("ed") && !first.ends_with("eed"))
}

/// Standing instructions to the assistant.
fn instruction(m: &str) -> bool {
    static NOT_VERB: &[&str] = words::INSTRUCTION__NOT_VERB;
    static ALWAYS_NEVER: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:(?:make sure|be sure|remember) (?:to |you )?)?(?:always|never)(?:\s+ever)?\s+(?P<verb>[\w'-]+)",
        )
    });
    static DONT: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:don't|do not|dont)\s+(?:ever\s+)?\w+.*?\b(?:ever|anymore|any more|unless|without (?:asking|checking|confirming|running|testing|telling|my)|by default|in general|at all|(?:to|into|on|in) (?:main|master|prod|production|the main branch|the master branch|release branches|shared branches)|in (?:any |all |our |the )?(?:[\w#+.-]+ )?(?:code|codebase|files|tests|test code|comments|commit messages|responses|answers|replies|docs|documentation|apis?|modules|scripts|examples|components|handlers|file|language))\b",
        )
    });
    // "Don't add docstrings to private helpers", "Do not touch anything under vendor/": a
    // prohibition is standing unless it points at the work at hand (rejected earlier).
    static DONT_GENERIC: LazyLock<Regex> = LazyLock::new(|| {
        rei(r"^(?:please\s+)?(?:don't|do not|dont)\s+(?P<next>[\w-]+)\s+(?P<obj>[\w-]+)\s+\S+")
    });
    static ENDS_WITH_PRONOUN: LazyLock<Regex> =
        LazyLock::new(|| rei(r"\b(?:it|this|that|them|these|those)\s*[.!]?$"));
    static DONT_NOT_EVER: LazyLock<Regex> =
        LazyLock::new(|| rei(r"^(?:please\s+)?(?:don't|do not|dont)\s+ever\s+\w"));
    static PREFER: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:prefer|favou?r)\s+\S.*\b(?:over|to|instead of|rather than|when|for|in|whenever)\b",
        )
    });
    static AVOID: LazyLock<Regex> = LazyLock::new(|| rei(r"^(?:please\s+)?avoid\s+(?P<next>\w+)"));
    // The marker must qualify the imperative itself: "use tabs, never spaces", "use pnpm instead
    // of npm" — not a clause inside its object ("write a function that always returns true").
    static MARKED_IMPERATIVE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:use|write|keep|make|put|name|format|run|answer|respond|reply|add|include|call|pick|choose|go with|stick (?:to|with)|default to|wrap|indent|end|start|begin|sign|prefix|limit|leave|mark|ask|check|test|lint|squash|rebase|sort|document|explain|show|give|cite|link|mention|quote|spell|capitalize|capitalise|stop|log|store|send|route|import|install|deploy)\s+(?P<next>\w+)\b(?P<mid>.*?)(?:,\s*(?:and\s+)?(?:always|never)\b|\b(?:always|never)[.!]?$|\b(?:every time|each time|whenever|by default|in general|at all times|unless|instead of|rather than|over (?:\w+ )?\w+|anymore|any more)\b|,\s*(?:and\s+)?not\s+[\w.+#/-]+(?:\s+(?:or|nor|and)\s+[\w.+#/-]+)?\s*(?:,|[.!]?$))",
        )
    });
    static STYLE_NOUN: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:keep|write|make|format|phrase|end|start|begin|limit|sign|prefix|wrap|put|use|give|title|name)\s+(?:all\s+|your\s+|the\s+|my\s+|our\s+|any\s+)?(?:[\w-]+\s+)?(?:answers|responses|replies|explanations|summaries|commit messages|commit titles|commit subjects|comments|code comments|docstrings|doc comments|pr descriptions|pull request descriptions|pr titles|log messages|error messages|variable names|function names|branch names|test names|changelog entries|messages|output|code blocks|examples|headings|lists)\b",
        )
    });
    static RECURRING_IMPERATIVE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:run|check|update|format|lint|test|rebase|squash|ask|confirm|bump|add|regenerate|rebuild|sign|review|document|write|read|open|use)\s+(?P<next>\w+)\b.*?\b(?:before|after|when|whenever|on every|for every|for each|for all|for any)\s+(?:each\b|every\b|any\b|committing|pushing|merging|releasing|deploying|publishing|shipping|tagging|submitting|opening (?:a )?(?:pr|pull request)|creating (?:a )?(?:pr|pull request)|sending (?:a )?(?:pr|pull request)|answering|responding|replying|editing|changing|deleting|removing|installing|upgrading|adding (?:a |new |any )?dependenc\w+|running migrations|touching|modifying|renaming|making (?:changes|commits)|you (?:commit|push|merge|release|deploy|open|create|add|change|edit|touch|delete|remove|rename|install|upgrade))",
        )
    });
    static ASK_FIRST: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:ask|check with|confirm with)\s+(?:me\s+)?(?:first\s+)?before\s+\w+ing\b",
        )
    });
    static LANGUAGE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:always\s+)?(?:answer|respond|reply|talk|speak|write|communicate)(?: to me)?(?: only)? in (?:english|french|german|spanish|portuguese|italian|dutch|polish|russian|ukrainian|chinese|mandarin|japanese|korean|hindi|arabic|turkish|swedish|norwegian|danish|finnish|czech|greek|hebrew|vietnamese|indonesian|plain english|simple english|british english|american english)\b",
        )
    });
    static YOU_SHOULD: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^you (?:should|must|need to|have to|are to|may|can)(?: always| never| not)\b|^you (?:always|never) (?:need to|have to|should|must)\b|^you (?:should|must|may) (?:only|always|never)\b|^you can (?:always )?assume\b|^you(?:'re| are) (?:not )?(?:allowed|permitted|expected|supposed) to\b",
        )
    });
    // "No console.log calls in committed code": a ban on something written into code or text
    // is an instruction on how to write it ("No direct pushes to main" stays a project rule).
    // "No TODOs without a ticket number": a ban on something written into code.
    static NO_CODE_THING: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^no (?:new )?(?:todos?|fixmes?|console\.?logs?|print statements|prints|debug prints|magic numbers|hard-?coded [\w-]+|unwraps?|panics|any types?|type: ignores?|noqa comments|eslint-disable comments|commented-out code|dead code|global variables|globals|abbreviations|emojis|inline styles)\b",
        )
    });
    static SCOPED_TO_PLACE: LazyLock<Regex> =
        LazyLock::new(|| rei(r"\b(?:in|on|to|into|inside|within|across|under)\s"));
    static NO_IN_CODE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^no (?:[\w.+#/-]+\s+){0,3}?[\w.+#/()-]+\s+(?:in|inside|within) (?:(?:any|the|our|all|committed|new|production|shipped|merged|public|checked-in)\s+)*(?:[\w.+#-]+\s+)?(?:code|codebase|source|sources|files?|comments?|commit messages?|docs|documentation|tests?|test code|scripts?|templates?|modules?|libraries|library code|apis?|responses|answers|output|logs?|log messages|strings?|text)\b",
        )
    });
    // "Put new components in src/components": where new things of a kind go.
    static PLACEMENT: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:put|place|keep|store)\s+(?:all\s+|any\s+|every\s+)?new\s+(?:[\w.+#-]+\s+){0,2}?[\w.+#-]+s\s+(?:in|under|into|inside|next to)\s+\S",
        )
    });
    static SPELLING: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:always\s+)?(?:use|write in|stick to)\s+(?:british|american|us|uk|canadian|australian|plain|simple) english\b",
        )
    });
    static STANDING_ASK: LazyLock<Vec<Regex>> = LazyLock::new(|| {
        [
            // "Please stop adding type: ignore comments", "Refrain from using globals".
            r"^(?:please\s+)?(?:stop|quit)\s+\w+ing\s+\S",
            r"^(?:please\s+)?(?:refrain|abstain) from\s+\w+ing\b",
            // "No need to explain basic Git commands to me".
            r"^(?:there's\s+|there is\s+)?no need to\s+(?:explain|ask|add|write|mention|summari[sz]e|repeat|apologi[sz]e|confirm|include|comment|document|tell|show|recap|restate|list)\b",
            // "Make sure every new endpoint has a test".
            r"^(?:please\s+)?(?:make sure|ensure|be sure)\s+(?:that\s+)?(?:every|each|all|any|no|new [\w-]+(?: [\w-]+)?s)\b",
            // "Feel free to refactor anything in utils/ without asking".
            r"^(?:please\s+)?feel free to\s+\w+.*\b(?:without (?:asking|checking)|anything|anywhere|any time|anytime|whenever|always)\b",
            // "You don't need to ask before running the tests".
            r"^you (?:don't|do not|never) (?:need|have) to\s+(?:ask|check with me|confirm|explain|wait|add|write|mention|summari[sz]e|apologi[sz]e|repeat|include|recap)\b",
        ]
        .into_iter()
        .map(rei)
        .collect()
    });
    // "Keep functions short and focused", "Keep pull requests small".
    static KEEP_STYLE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:always\s+)?keep\s+(?:all\s+|your\s+|our\s+)?(?:[\w-]+\s+)?(?:functions|methods|files|classes|modules|lines|prs|pull requests|commits|diffs|changes|components|tests|test names|imports|dependencies|migrations|handlers|controllers|endpoints|structs|types|branches|names|docstrings)\s+(?:under|below|short|small|focused|simple|minimal|atomic|readable|pure|flat|shallow|lean|thin|tidy|consistent|sorted|alphabeti[sz]ed|separate|private|immutable|stateless|self-contained|up to date|in sync)\b",
        )
    });
    static NO_CIRCUMSTANCES: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:under no circumstances|in no case|at no point)\b|^there (?:should|must|shall) (?:be no|never be|not be any|always be)\b",
        )
    });
    if NO_IN_CODE.is_match(m)
        // A ban scoped to a place ("No hardcoded credentials in the repo") stays a project rule,
        // as "No direct pushes to main" does.
        || (m.get(..3).is_some_and(|w| w.eq_ignore_ascii_case("no "))
            && NO_CODE_THING.is_match(m)
            && !points_at_hand(m)
            && !SCOPED_TO_PLACE.is_match(m))
        || KEEP_STYLE.is_match(m)
        || NO_CIRCUMSTANCES.is_match(m)
        || PLACEMENT.is_match(m)
        || SPELLING.is_match(m)
        || STANDING_ASK.iter().any(|r| r.is_match(m))
    {
        return true;
    }
    if let Some(c) = ALWAYS_NEVER.captures(m) {
        let verb = c
            .name("verb")
            .map(|v| v.as_str().to_ascii_lowercase())
            .unwrap_or_default();
        return !NOT_VERB.contains(&verb.as_str());
    }
    DONT.is_match(m)
        || DONT_NOT_EVER.is_match(m)
        || DONT_GENERIC.captures(m).is_some_and(|c| {
            let next = c
                .name("next")
                .map_or(String::new(), |w| w.as_str().to_ascii_lowercase());
            let obj = c
                .name("obj")
                .map_or(String::new(), |w| w.as_str().to_ascii_lowercase());
            !matches!(
                next.as_str(),
                "worry"
                    | "bother"
                    | "forget"
                    | "mind"
                    | "hesitate"
                    | "panic"
                    | "be"
                    | "stop"
                    | "know"
                    | "think"
                    | "understand"
                    | "see"
                    | "get"
                    | "need"
                    | "want"
                    | "have"
            ) && !OBJECT_PRONOUNS.contains(&obj.as_str())
                && !matches!(obj.as_str(), "until" | "till" | "before" | "yet" | "for")
                && !ENDS_WITH_PRONOUN.is_match(m)
        })
        || PREFER.is_match(m)
        || next_word_ok(&AVOID, m, words::INSTRUCTION__OBJECT)
        || marked_imperative(&MARKED_IMPERATIVE, m)
        || STYLE_NOUN.is_match(m)
        || next_word_ok(&RECURRING_IMPERATIVE, m, OBJECT_PRONOUNS)
        || ASK_FIRST.is_match(m)
        || LANGUAGE.is_match(m)
        || YOU_SHOULD.is_match(m)
}

/// Rules and facts of the project or team.
fn project_rule(s: &Masked) -> bool {
    const SUBJECT: &str = r"(?:(?:most|all|much|parts?) of\s+)?(?:we|our(?:\s+[\w.+#/-]+){1,4}?|the team|the whole team|everyone|everybody|nobody|no one|this (?:repo|repository|project|codebase|service|app|application|library|crate|package|monorepo|team|company|org|organization|organisation|workspace)|the (?:[\w-]+\s+){0,2}?(?:repo|repository|project|codebase|build|ci|ci pipeline|pipeline|api|backend|frontend|monorepo|app|application|service|database|db|main branch|default branch|master branch|production|staging|staging environment|prod|test suite|server|client|cli|sdk|schema|docs site|website|team|release process|deploy process|deployment process|workspace|code base|dashboard|admin|warehouse|cluster|module|client|worker|workers|scheduler|queue|cache|gateway|proxy|monolith|library|site|portal|infra|infrastructure|code|tooling|broker|ui|mobile app|web app|ios app|android app|source of truth)|(?:all|every|each|any)(?:\s+[\w.+#/-]+){1,3}?|ci|production|prod|staging|releases|deploys|deployments|main|master)";
    const VERB: &str = r"(?:use|uses|deploy|deploys|release|releases|ship|ships|target|targets|support|supports|require|requires|run|runs|follow|follows|prefer|prefers|avoid|avoids|keep|keeps|store|stores|host|hosts|build|builds|test|tests|pin|pins|write|writes|squash|squashes|squash-merge|squash-merges|rebase|rebases|merge|merges|tag|tags|publish|publishes|review|reviews|vendor|vendors|lint|lints|format|formats|rely|relies|depend|depends|live|lives|talk|talks|expect|expects|track|tracks|document|documents|generate|generates|serve|serves|own|owns|maintain|maintains|mirror|mirrors|cut|cuts|go through|goes through|go to|goes to|enforce|enforces|forbid|forbids|allow|allows|ban|bans|block|blocks|compile|compiles|bump|bumps|version|versions|backport|backports|sign|signs|freeze|freezes|speak|speaks|communicate|communicates|pair|pairs|need|needs|work in|work on|works in|works on|code in|program in|treat|treats|log|logs|handle|handles|name|names|prefix|prefixes|do code review|do reviews|deploy to|rotate|rotates|back up|backs up|return|returns|respond|responds|emit|emits|expose|exposes|accept|accepts|stay on|stays on|belong|belongs|happen|happens|occur|occurs|sit|sits|has|contains|includes|consists of)";
    const PARTICIPLE: &str = r"(?:written|built|deployed|hosted|versioned|configured|managed|stored|owned|located|generated|based|maintained|released|tagged|published|served|licensed|structured|organized|organised|split|kept|tracked|documented|pinned|protected|required|forbidden|prohibited|banned|mandatory|allowed|not allowed|expected|handled|formatted|linted|tested|reset|backed up|mirrored|named|squashed|rebased|signed|reviewed|frozen|locked|compiled|bundled|packaged|distributed|shared|restricted|limited|encrypted|cached|rotated|wiped|refreshed|rebuilt|gated|enforced|checked|monitored|auto-generated|autogenerated|vendored|sharded|replicated|scheduled|triggered|capped|squash-merged|merged only|run|implemented|designed|used|read-only|append-only|immutable|public|private|internal|open source|open-source|deprecated|discouraged|encouraged|preferred|case-sensitive|case-insensitive|cut|created|opened|rolled out|promoted|archived|purged|provisioned|migrated|uploaded|pushed|copied|synced|exported|imported|written|sent)";
    static ACTIVE: LazyLock<Regex> = LazyLock::new(|| {
        rei(&format!(
            r"^(?:(?:in|for|on|across) (?:this|our|the) (?:repo|repository|project|codebase|team|company|monorepo|org|organization|organisation)\s*,?\s+)?{SUBJECT}\s+(?:(?:always|never|only|usually|generally|normally|typically|also|all|mostly|strictly|exclusively)\s+)*(?:(?:don't|do not|doesn't|does not|never|cannot|can't|won't|will not|must not|mustn't|should not|shouldn't|must|should|shall|may only|can only|have to|has to|need to|needs to)\s+(?:(?:always|never|only|ever)\s+)?)?{VERB}\b"
        ))
    });
    static COPULA: LazyLock<Regex> = LazyLock::new(|| {
        rei(&format!(
            r"^(?:(?:in|for|on|across) (?:this|our|the) (?:repo|repository|project|codebase|team|company|monorepo|org|organization|organisation)\s*,?\s+)?(?:{SUBJECT}|[\w.+#/-]+(?:\s+[\w.+#/-]+){{0,2}}?s)\s+(?:is|are|must be|must never be|must not be|should always be|should never be|should be|shall be|can only be|may only be|cannot be|can't be|will always be|have to be|has to be|need to be|needs to be|get|gets)\s+(?:(?:always|never|only|not|all|strictly|automatically|exclusively)\s+)*{PARTICIPLE}\b"
        ))
    });
    static IDENTITY: LazyLock<Regex> = LazyLock::new(|| {
        rei(&format!(
            r"^(?:{SUBJECT})\s+(?:is|are)\s+(?:a|an)\s+(?P<next>\w+)"
        ))
    });
    static MODAL_RULE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:(?:all|every|each|any|no)\s+)?(?:[\w.+#/-]+\s+){0,3}?[\w.+#/-]+\s+(?:must|mustn't|shall|shan't|must always|must never|should always|should never|may never|can never|are never|is never|are always|is always|may only|can only|are only|is only)\s+\w+",
        )
    });
    static NO_RULE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^no (?:[\w.+#/-]+\s+){0,3}?[\w.+#/-]+\s+(?:in|on|to|into|without|before|after|outside|allowed|unless|during|from)\b",
        )
    });
    static ONLY_RULE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^only (?:[\w.+#/-]+\s+){0,3}?[\w.+#/-]+\s+(?:can|may|are allowed to|is allowed to|get to|should)\s+\w+",
        )
    });
    static PRONOUN_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
        rei(r"^(?:it|this|that|they|he|she|i|you|there|these|those|which|what|who)\b")
    });
    let m = s.mask.trim();
    const NOT_IDENTITY: &[&str] = words::PROJECT_RULE__NOT_IDENTITY;
    static SOURCE_OF_TRUTH: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^the (?:single |only |one )?source of truth for (?:[\w.+#/-]+\s+){1,5}?(?:is|are)\s+\S",
        )
    });
    // "We're on Node 18", "We've standardized on Terraform": the team's stack.
    static WE_ON: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i:^we(?:'re| are) (?:still |all |currently )?(?:on|using|running)\s+(?:\w+\s+){0,2}?)(?-i:[A-Z0-9])|(?i:^we(?:'ve| have) (?:standardi[sz]ed|settled|agreed|converged) on\b)",
        )
    });
    // "Postgres is our primary database": a named thing in a role of the stack.
    static OUR_ROLE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^[\w.+#/-]+(?:\s+[\w.+#/-]+)?\s+(?:is|are)\s+(?:still\s+)?our\s+(?:(?:main|primary|only|default|standard|preferred|go-to|single|official|internal)\s+)?(?:[\w-]+\s+)?(?:database|db|datastore|store|cache|queue|broker|language|framework|ci|cloud|cloud provider|provider|orm|test runner|build tool|build system|package manager|linter|formatter|web server|server|proxy|load balancer|registry|host|hosting|monitoring|logging|tracing|issue tracker|tracker|cdn|dns|auth provider|identity provider|runtime|platform|stack|message bus|event bus|search engine|scheduler|deploy tool|vcs|editor|ide|toolchain|compiler|bundler)\b",
        )
    });
    // "Anything under legacy/ is frozen": a rule for everything in a place.
    static EVERYTHING_IN: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:anything|everything|nothing|all code|all files|every file|no file|no code)\s+(?:under|in|inside|below|within)\s+\S+(?:\s+\S+)?\s+(?:is|are|must|should|gets?|belongs|goes|stays|can|may)\b",
        )
    });
    // "Nginx handles TLS termination in front of every service": what a named part does for all
    // of a kind.
    static FOR_ALL: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^[\w.+#/-]+\s+(?:handles|manages|runs|serves|owns|terminates|routes|proxies|schedules|stores|caches|builds|deploys|signs|validates|checks|generates|sends|collects|backs up|takes care of)\s+(?:[\w.+#/-]+\s+){0,5}?(?:all|every|each)\s+(?:of\s+)?(?:our\s+|the\s+)?[\w-]+",
        )
    });
    // "Our default branch is trunk".
    static BRANCH_IS: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:our|the) (?:default|main|primary|release|production|deploy|development|integration|stable) branch (?:is|are) (?:called |named )?[\w./-]+",
        )
    });
    // "We switched from Webpack to Vite", "We moved all cron jobs to Kubernetes": a change of
    // the stack, told in the past but standing.
    static SWITCHED: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i:^we(?:'ve| have)? (?:(?:switched|migrated|upgraded|standardi[sz]ed)\s+(?:[\w.+#/-]+\s+){0,5}?|(?:moved|changed|converted)\s+(?:(?:all|our|every|everything)\s+(?:[\w.+#/-]+\s+){0,4}?|(?:[\w.+#/-]+\s+){0,3}?from\s+\S+\s+))(?:to|onto|over to)\s+)(?-i:[A-Z0-9])(?i:[\w.+#-]*)",
        )
    });
    if WE_ON.is_match(m)
        || OUR_ROLE.is_match(m)
        || EVERYTHING_IN.is_match(m)
        || BRANCH_IS.is_match(m)
        || SWITCHED.find(m).is_some_and(|f| {
            // "We moved the meeting to Thursday": a date, not a tool.
            const CALENDAR: &[&str] = words::PROJECT_RULE__CALENDAR;
            let last = f.as_str().rsplit(' ').next().unwrap_or_default();
            !CALENDAR.contains(&last.to_ascii_lowercase().as_str())
        })
    {
        return true;
    }
    if ACTIVE.is_match(m) || SOURCE_OF_TRUTH.is_match(m) || next_word_ok(&IDENTITY, m, NOT_IDENTITY)
    {
        return true;
    }
    // "Release branches are cut …", "Build artifacts are stored …": a verb-looking noun that is
    // followed straight by its verb is a subject, not an imperative.
    static NOUN_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^[\w-]+\s+(?:[\w-]+\s+)?[\w-]+\s+(?:is|are|get|gets|go|goes|must|should|need|needs|live|lives|stay|stays|belong|belongs)\s",
        )
    });
    if PRONOUN_SUBJECT.is_match(m) || (starts_with_work_verb(m) && !NOUN_SUBJECT.is_match(m)) {
        return false;
    }
    // "Tests live next to the code", "Releases go through QA": a generic plural subject.
    static PLURAL_ACTIVE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:(?:the|all|our)\s+)?(?:[\w.+#/-]+\s+){0,2}?[a-z][\w-]*s\s+(?:(?:always|never|only|usually|all|automatically|straight|directly)\s+)*(?:live|run|use|need|require|follow|go through|go to|stay|target|depend on|rely on|belong|get deployed|get reviewed|get merged|get tagged|get released|get squashed|expire|happen|land|go straight to|go directly to)\b",
        )
    });
    // "Code review is mandatory for every change", "Documentation for the API is generated from
    // docstrings": a named thing and how it is done, with a preposition saying from/by/where.
    static RULE_COPULA: LazyLock<Regex> = LazyLock::new(|| {
        rei(&format!(
            r"^(?:[\w.+#/-]+\s+){{0,5}}?[\w.+#/-]+\s+(?:is|are)\s+(?:(?:always|never|only|automatically|strictly)\s+)?(?:mandatory|required|compulsory|forbidden|prohibited|not allowed|banned|{PARTICIPLE}\s+(?:from|by|with|via|through|on|in|to|under|at))\b"
        ))
    });
    if COPULA.is_match(m)
        || RULE_COPULA.is_match(m)
        || MODAL_RULE.is_match(m)
        || (NO_RULE.is_match(m) && !points_at_hand(m))
        || ONLY_RULE.is_match(m)
        // "In React components use hooks only" is an imperative after a scope, not a subject.
        || (PLURAL_ACTIVE.is_match(m) && !starts_with_scope(m))
        || FOR_ALL.is_match(m)
    {
        return true;
    }
    // "Our CI is GitHub Actions", "The backend is in Go": a subject named by a proper noun.
    static PROPER: LazyLock<Regex> = LazyLock::new(|| {
        re(&format!(
            r"(?i:^{SUBJECT}\s+(?:(?:still|also)\s+)?(?:is|are)(?:\s+(?:written\s+in|in|on|at|using|running|running on|built on|built with|based on))?(?:\s+(?:the|an?|old|new|legacy|same|our|[a-z]+-based))*)\s+[A-Z][\w.+#-]*"
        ))
    });
    PROPER.is_match(m)
}

// --- shapes ---------------------------------------------------------------------------------
//
// The phrase rules above were written from one author's voice; another author's durable
// statements mostly have the same *shapes* in other words (docs/DESIGN.md, "Extract"): a
// present, habitual statement about the project, the team or the user, or an imperative about a
// kind of thing rather than the thing at hand. These rules run after the phrase rules found
// nothing, and keep a statement by shape unless a noise shape applies.

/// Chat spellings the rules should read as words: "pls dont" → "please don't", "u" → "you",
/// "Im" → "I'm". Code spans are left alone. The summary keeps the tidied words.
fn tidy(text: &str) -> String {
    const WORDS: &[(&str, &str)] = words::TIDY__WORDS;
    if !text.is_ascii() && !text.contains(' ') {
        return text.to_string();
    }
    // "Please not to use var": a learner's "please don't".
    static PLEASE_NOT_TO: LazyLock<Regex> = LazyLock::new(|| rei(r"\b(please) not to\b"));
    let text = if text.to_ascii_lowercase().contains("please not to") {
        PLEASE_NOT_TO.replace_all(text, "$1 don't")
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    let text = text.as_ref();
    let mut out = String::with_capacity(text.len() + 8);
    let mut in_code = false;
    for (i, token) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let ticks = token.matches('`').count();
        if in_code || ticks > 0 {
            if ticks % 2 == 1 {
                in_code = !in_code;
            }
            out.push_str(token);
            continue;
        }
        let core = token.trim_end_matches([',', '.', '!', ';', ':', '?']);
        let lower = core.to_ascii_lowercase();
        // "for like 10 years": a filler before a number.
        if lower == "like" && i > 0 {
            let next_is_number = text
                .split(' ')
                .nth(i + 1)
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()));
            let prev = text
                .split(' ')
                .nth(i - 1)
                .unwrap_or_default()
                .to_ascii_lowercase();
            if next_is_number
                && matches!(
                    prev.as_str(),
                    "for" | "about" | "takes" | "took" | "in" | "of" | "over" | "around"
                )
            {
                out.push_str("about");
                continue;
            }
        }
        match WORDS.iter().find(|(w, _)| *w == lower) {
            Some((_, full)) => {
                let upper = core.starts_with(|c: char| c.is_ascii_uppercase());
                let mut word = (*full).to_string();
                if upper && !word.starts_with("I'") {
                    if let Some(first) = word.get_mut(..1) {
                        first.make_ascii_uppercase();
                    }
                }
                out.push_str(&word);
                out.push_str(&token[core.len()..]);
            }
            None => out.push_str(token),
        }
    }
    out
}

// The shape rules below run on every sentence the phrase rules did not keep, in a process that
// lives for one agent turn: each pattern is compiled on first use, so cheap word tests decide
// first whether a pattern can match at all (docs/DESIGN.md, "Extract": speed).

/// The first word of `m` in lowercase, after "please", "just", "always", "also".
fn first_word(m: &str) -> String {
    m.split(' ')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-'))
        .find(|w| {
            !w.is_empty()
                && !matches!(
                    w.to_ascii_lowercase().as_str(),
                    "please" | "just" | "always" | "also" | "pls"
                )
        })
        .unwrap_or_default()
        .to_ascii_lowercase()
}

fn has_any(lower: &str, words: &[&str]) -> bool {
    words.iter().any(|w| lower.contains(w))
}

/// Words that make a whole sentence noise whatever its clauses say: hedging, a scope of the
/// moment, a plan.
fn sentence_is_noise(m: &str) -> bool {
    // "Sprint planning is every other Monday, releases follow on Thursday": a schedule.
    static EVERY_WEEKDAY: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\bevery (?:other |second |first |last )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|day|sprint)\b",
        )
    });
    static ON_WEEKDAY: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:on|until|till|by|before) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
        )
    });
    // "I'm most productive in the morning, so that's when I'll ask …": the consequence after
    // ", so" does not make the fact before it a plan or a hedge.
    let m = match m.to_ascii_lowercase().find(", so ") {
        Some(at) if at > 12 => &m[..at],
        _ => m,
    };
    let lower = m.to_ascii_lowercase();
    let schedule;
    let m = if (lower.contains("every ") && EVERY_WEEKDAY.is_match(m))
        || lower.contains("weekends")
        || lower.contains("weekdays")
    {
        schedule = ON_WEEKDAY.replace_all(m, "weekly");
        schedule.as_ref()
    } else {
        m
    };
    static NOISE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|i suppose|i believe|not sure|no idea|i wonder|kind of|sort of|for now|for the time being|at the moment|right now|this time|for this (?:pr|task|run|session|ticket|branch|one|change|commit|release|sprint|week|demo)|temporar(?:y|ily)|today|tonight|tomorrow|yesterday|next (?:week|month|quarter|sprint|year|time)|(?:next|this|on|by|until|before) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|last (?:week|month|night|time|sprint)|later|at some point|eventually|someday|if possible|let's|lets|let me|we'll|i'll|you'll|gonna|going to|can you|could you|would you|will you|what if|how about|any idea|thanks|thank you|lol|lmao|haha|rofl|ugh|omg|wtf|brb|after lunch|before lunch|in a bit|in a minute|in an hour)\b|\b(?:way |much |far |a bit |kind of )?too (?:big|small|slow|long|many|much|large|heavy|complex|complicated|high|low|hard|verbose|noisy|old)\b|\b(?:that's|that is|it's|it is|this is) (?:so |really |pretty |just )?(?:terrible|awful|bad|horrible|great|weird|annoying|wrong|ridiculous|crazy|insane|unacceptable|not ok|not okay|a problem|the problem|the issue|a bug|too slow|too much)\b",
        )
    });
    NOISE.is_match(m) || filter::is_temporary(m)
}

/// After a lead naming any such case, "it", "them" and "the change" point at the lead's
/// instance; only a deictic points at the work at hand.
fn only_deictic(m: &str) -> bool {
    static DEICTIC: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:this|these|those|here|above|below)\b|\bthat (?:\w+ )?(?:one|file|function|thing|part|bit)\b|\blines? \d+",
        )
    });
    DEICTIC.is_match(m)
}

/// Pointers at the work at hand: a deictic, or a definite thing of the current task.
fn points_at_hand(m: &str) -> bool {
    static AT_HAND: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:this|these|those|it|them|here|above|below)\b|\blines? \d+|\bthat\s*[.!]?$|\bthe [\w-]+ (?:page|screen|modal|form|button|view|dialog|popup|tab|file|function|method|script)\b|\bthat (?:\w+ )?(?:one|file|function|thing|part|bit|test|change|line|regex|query|chart|table|error|output|code)\b|\b(?:the|your|my) (?:script|file|function|method|class|bug|error|issue|pr|commit|diff|patch|line|snippet|output|log|logs|query|endpoint|loop|button|page|form|modal|chart|field|variable|component|spinner|header|footer|title|result|results|numbers|values|experiment|typo|crash|fixture|repro|example|screenshot|stack trace|trace|traceback|last one|first one|other one|draft|version|approach|suggestion|answer|reply|response|idea|option|plan|proposal|fix|solution|refactor|request|change|changes|ticket|task|branch|module|suite)\b",
        )
    });
    static NOT_DEICTIC: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:these days|this year|in this (?:repo|repository|project|codebase|team|company|org)|this (?:repo|repository|project|codebase|team|company|org|monorepo|workspace|service|app|crate|library|package)|(?:dev|developer|engineer|person|maintainer|owner|lead|one) (?:on|for) this)\b",
        )
    });
    AT_HAND.is_match(m) && AT_HAND.is_match(&NOT_DEICTIC.replace_all(m, "X"))
}

/// A sentence judged noise whole may hold a durable clause next to a one-off request ("Fix the
/// header, and btw we deploy on Fridays"): the first clause that is durable on its own is kept.
fn by_clauses(s: &Masked) -> Option<Candidate> {
    static CUT: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r",\s+(?:and\s+|but\s+|so\s+|also\s+|btw\s+|though\s+)?|;\s+|\s+[-–—]+\s+|:\s+|\s+(?:so|but|and then|and also|and btw|btw)\s+|\s+and\s+",
        )
    });
    // A failure told next to a statement makes the whole a report ("Nginx handles the request
    // but the upstream times out").
    static REPORT: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:fails|failed|failing|crashed|crashes|crashing|broke|broken|hangs|hung|times out|timed out|timing out|doesn't work|does not work|didn't work|isn't working|won't compile|doesn't compile|errors? out|stuck|flaky|throws|threw|returns? (?:a )?\d{3}|(?:is|are|was|were|went) (?:down|offline|unreachable)|outage|(?:can't|cannot|can not|couldn't) (?:log ?in|sign in|access|connect|reach))\b",
        )
    });
    // "CI fails if go mod tidy changes anything" states a rule, not a failure.
    static FAILS_IF: LazyLock<Regex> = LazyLock::new(|| {
        rei(r"\b(?:fails?|errors? out|breaks?) (?:if|when|whenever|unless|on any|on every)\b")
    });
    let m = s.mask.trim_end();
    if m.contains('?')
        || sentence_is_noise(m)
        || REPORT.is_match(&FAILS_IF.replace_all(m, "rejects"))
    {
        return None;
    }
    let mut cuts = vec![0];
    for f in CUT.find_iter(&s.mask) {
        if f.as_str().trim().eq_ignore_ascii_case("and") {
            // " and " joins clauses only when a new subject follows.
            let after = s.mask[f.end()..].to_ascii_lowercase();
            let subject = words::BY_CLAUSES__SUBJECT;
            if !subject.iter().any(|w| after.starts_with(w)) {
                continue;
            }
        }
        cuts.push(f.start());
        cuts.push(f.end());
    }
    cuts.push(s.mask.len());
    if cuts.len() < 4 {
        return None;
    }
    let pieces: Vec<(usize, usize)> = cuts.chunks(2).map(|c| (c[0], c[1])).collect();
    // "If the cache misses, we fall back to …": the clauses after a condition hold only under it.
    static CONDITION: LazyLock<Regex> = LazyLock::new(|| {
        rei(r"^(?:if|when|whenever|once|after|before|while|unless|until|as soon as)\b")
    });
    // "Before you start: …" sets the context for what follows; it is no condition.
    static CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
        rei(r"^(?:before (?:you|we) (?:start|begin|dive in|get started)|once more)\b")
    });
    let head = s.mask.trim_start();
    if CONDITION.is_match(head) && !CONTEXT.is_match(head) {
        return None;
    }
    for (a, b) in pieces {
        let Some(clause) = s.head(b).and_then(|h| h.tail(a)) else {
            continue;
        };
        if clause.mask.trim().split(' ').count() < 3 {
            continue;
        }
        let clause = strip_fillers(clause);
        if points_at_hand(clause.mask.trim()) {
            continue;
        }
        let mut c = statement(&clause).or_else(|| by_shape(&clause));
        if let Some(c) = c.as_mut() {
            let t = c.summary.trim_end_matches([',', ';', ':', ' ']).to_string();
            c.summary = if t.ends_with(['.', '!']) {
                t
            } else {
                format!("{t}.")
            };
            return Some(c.clone());
        }
    }
    None
}

/// Judges a sentence (or a clause) by its shape; see the section comment.
fn by_shape(s: &Masked) -> Option<Candidate> {
    let m = s.mask.trim();
    let lower = m.to_ascii_lowercase();
    if m.ends_with('?') && has_any(&lower, words::BY_SHAPE__CAN_YOU) {
        if let Some(c) = stop_asking(s) {
            return Some(c);
        }
    }
    if m.contains('?') || sentence_is_noise(m) {
        return None;
    }
    if let Some(c) = early_shapes(s, &lower) {
        return Some(c);
    }
    if has_any(&lower, words::BY_SHAPE__QUESTION) {
        if let Some(c) = ask_person(s) {
            return Some(c);
        }
    }
    let rule_words = words::BY_SHAPE__RULE_WORDS;
    if !has_any(&lower, rule_words) {
        return by_shape_body(s);
    }
    if let Some(c) = how_we_work(s) {
        return Some(c);
    }
    // "The way we work here is every service gets its own chart": the lead says it is the rule.
    static RULE_LEAD: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:the way we (?:work|do (?:it|things)|do this)(?: here)? is|here's how we (?:work|do (?:it|things))|how we do (?:it|things)(?: here)? is|(?:our|the|the team's|a team) (?:rule|convention|policy|standard|agreement|practice) (?:here )?is|(?:our|the) (?:house|team|golden) rule(?: here)? is|(?:a |our |the )?(?:rule of thumb|house rule|golden rule)(?: here)?\s*:)\s*:?\s*(?:that\s+|to\s+)?",
        )
    });
    if let Some(f) = RULE_LEAD.find(m) {
        let rest = &m[f.end()..];
        if rest.split(' ').count() >= 3 && !rejected_body(rest) && !only_deictic(rest) {
            let (whole, why) = split_why(s);
            return Some(Candidate {
                topic: MemoryType::Project,
                summary: whole.orig.trim().to_string(),
                why,
            });
        }
    }
    by_shape_body(s)
}

/// [`by_shape`] after the rule-naming leads and tails.
fn by_shape_body(s: &Masked) -> Option<Candidate> {
    let before = s.mask.len();
    let s = strip_time_phrases(s.clone());
    let mut standing = s.mask.len() < before;
    let (lead, main) = match shape_lead(&s) {
        Some(at) => (true, s.tail(at)?),
        None => (false, s.clone()),
    };
    let (main_only, _) = split_why(&main);
    let mm = main_only.mask.trim();
    // "When you generate migrations, name them with a timestamp prefix": a lead naming work
    // that comes back makes the imperative standing, and a pronoun after it points at the
    // lead's object, not at the work at hand.
    static RECURRING: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:when|whenever|if|every time|each time|any time|anytime|before|after)\s+(?:you|we|someone|anyone)\s+(?P<v>[a-z]+)\s+(?:(?:a|an|any|new|the)\s+)?[\w.+#/-]+[^,]*,",
        )
    });
    let recurring = lead
        && RECURRING.captures(&s.mask).is_some_and(|c| {
            c.name("v").is_some_and(|v| {
                !matches!(
                    v.as_str().to_ascii_lowercase().as_str(),
                    "get"
                        | "have"
                        | "are"
                        | "were"
                        | "finish"
                        | "see"
                        | "find"
                        | "come"
                        | "got"
                        | "had"
                        | "did"
                        | "do"
                        | "can"
                        | "could"
                        | "think"
                        | "want"
                        | "need"
                )
            }) && !points_at_hand(c.get(0).map_or("", |g| g.as_str()))
        });
    // "If you're unsure about an API, …", "For every bug fix …": a lead about any such case
    // (not "For every row in the CSV, …", a loop over the data at hand).
    static ANY_CASE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:if|when|whenever) (?:you're|you are|you feel|you get) (?:unsure|uncertain|in doubt|stuck|confused|not certain|not sure)\b|^(?:if|when) in doubt\b|^if (?:anything|something) (?:is|seems) (?:unclear|ambiguous)\b|^(?:for|on|in|with) (?:every|each|all|any)\s|^(?:if|when|whenever) (?:a|an|any) [\w-]+ (?:needs|has|takes|gets|is|grows|goes|exceeds|returns|accepts|touches|changes)\b",
        )
    });
    static DEFINITE: LazyLock<Regex> =
        LazyLock::new(|| rei(r"\b(?:the|this|these|those|my|your|of|that)\b"));
    static FOR_EACH: LazyLock<Regex> =
        LazyLock::new(|| rei(r"^(?:for|on|in|with) (?:every|each|all|any)\s"));
    let lead_text = s
        .mask
        .get(..s.mask.len() - main.mask.len())
        .unwrap_or_default();
    let any_case = lead
        && ANY_CASE.is_match(&s.mask)
        && !(FOR_EACH.is_match(lead_text) && DEFINITE.is_match(lead_text));
    // "Explain regexes when you write them": the pronoun points back at the kind named.
    static TRAILING_RECURRING: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:always\s+)?[a-z-]+ (?:[\w-]+ )?[a-z][\w-]*s when(?:ever)? (?:you|we) (?:write|add|use|create|change|touch|make|introduce|open|edit|see|find|hit|get|need) (?:them|one|any)\b",
        )
    });
    let recurring = recurring
        || (!lead
            && s.mask.to_ascii_lowercase().contains(" when")
            && TRAILING_RECURRING.is_match(&s.mask));
    // "Anything user-facing needs a screenshot in the PR": for every such thing, "the PR" is
    // its PR.
    let universal = {
        let l = s.mask.trim_start().to_ascii_lowercase();
        words::BY_SHAPE_BODY__UNIVERSAL
            .iter()
            .any(|w| l.starts_with(w))
    };
    let at_hand = if recurring || any_case || universal {
        only_deictic(s.mask.trim())
    } else {
        points_at_hand(s.mask.trim())
    };
    if mm.split(' ').count() < 3 || rejected_body(mm) || at_hand {
        return None;
    }
    standing |= recurring || any_case;
    // "When a test is flaky, quarantine it rather than deleting it": after a lead about any
    // such case, a main clause that opens with a verb is an instruction for every such case.
    if (recurring || any_case) && lead {
        let first = first_word(mm);
        const NOT_VERB: &[&str] = words::BY_SHAPE_BODY__NOT_VERB;
        if !first.is_empty()
            && !NOT_VERB.contains(&first.as_str())
            && !is_past_or_progressive(&first)
            && !first.ends_with('s')
            && main_only
                .mask
                .trim_start()
                .starts_with(|c: char| c.is_ascii_lowercase())
            && !rejected_opening(mm)
        {
            let (whole, why) = split_why(&s);
            return Some(Candidate {
                topic: MemoryType::Feedback,
                summary: whole.orig.trim().to_string(),
                why,
            });
        }
    }
    let topic = if lead {
        classify(&main_only).or_else(|| shape_topic(&main_only, standing))?
    } else {
        shape_topic(&main_only, standing)?
    };
    if lead && topic != MemoryType::Reference {
        // "If the cache misses, we fall back to …" describes behaviour in a situation; only a
        // lead naming a scope ("For SQL migrations, …") carries a fact or an instruction.
        static SCOPE: LazyLock<Regex> =
            LazyLock::new(|| rei(r"^(?:for|in|on|across|with|inside|within|outside)\s"));
        if rejected_body(s.mask.trim())
            || (topic == MemoryType::Project && !SCOPE.is_match(s.mask.trim()))
        {
            return None;
        }
    }
    let (whole, why) = split_why(&s);
    // A reason about the moment makes the rule suspect ("We use yarn because npm is broken").
    if why.as_deref().is_some_and(rejected_body) {
        return None;
    }
    Some(Candidate {
        topic,
        summary: whole.orig.trim().to_string(),
        why,
    })
}

/// "For SQL migrations, …", "Whenever you write bash scripts put …", "On the backend …": a lead
/// naming a kind of work, not a moment. Returns where the main clause starts.
fn shape_lead(s: &Masked) -> Option<usize> {
    static COMMA: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:when|whenever|if|for|in|on|before|after|every time|each time|any time|anytime|across|with|inside|within|outside)\s+[^,]{3,60},\s+",
        )
    });
    static NO_COMMA: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:when|whenever|every time|each time|any time|anytime|before|after)\s+(?:you|we|i|someone|anyone)\s+[\w'-]+(?:\s+[\w.+#/-]+){1,4}?\s+(?P<v>use|put|add|run|write|keep|make|include|check|update|start|always|never|don't|do|prefer|avoid|set|name|ask|ping|tell|mention|wrap|format|prefix|follow|stick)\b",
        )
    });
    static SCOPE_NO_COMMA: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:for|in|on|across|within) (?:all |every |any |each )?(?:[\w.+#/-]+\s+){1,3}?(?P<s>i (?:want|need|expect|prefer)|we|please|always|never|don't|do not|use|prefer|avoid|keep|add|write|run|include|put|ask|check|update|document|test|make sure|ensure)\b",
        )
    });
    static ING_NO_COMMA: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:when|whenever|before|after|while)\s+\w+ing(?:\s+[\w.+#/-]+){0,4}?\s+(?P<v>use|prefer|avoid|keep|put|add|run|write|include|check|always|never|don't|do not|stick|follow|name|wrap|format)\b",
        )
    });
    let first = first_word(&s.mask);
    let leads = words::SHAPE_LEAD__LEADS;
    if !leads.contains(&first.as_str()) {
        return None;
    }
    if let Some(f) = COMMA.find(&s.mask).filter(|f| !lead_has_verb(f.as_str())) {
        return Some(f.end());
    }
    if let Some(at) = ING_NO_COMMA.captures(&s.mask).and_then(|c| c.name("v")) {
        return Some(at.start());
    }
    if let Some(at) = SCOPE_NO_COMMA.captures(&s.mask).and_then(|c| c.name("s")) {
        return Some(at.start());
    }
    NO_COMMA
        .captures(&s.mask)
        .and_then(|c| c.name("v"))
        .map(|v| v.start())
}

/// Shapes whose pronouns or definite nouns point back into the sentence itself, judged before
/// the at-hand test: "I want commit messages under 72 characters", "Show me the plan before
/// writing code for anything bigger than a bug fix", "Architecture overview: docs/arch.md — read
/// it before big changes".
fn early_shapes(s: &Masked, lower: &str) -> Option<Candidate> {
    static WANT_KIND: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^i (?:always )?(?:want|need|expect|like|prefer) (?:my |our |all |the |your )?(?:commit messages|commit titles|prs|pull requests|pr titles|functions|lines|answers|responses|replies|tests|names|variable names|comments|files|branches|commits|docs|logs|log lines|summaries|explanations)\b",
        )
    });
    static SHOW_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:always\s+)?(?:show|tell|ask|check with|run (?:it|things|them) by) me\b.*\bbefore (?:you )?(?:writing|changing|starting|touching|making|doing|implementing|coding|merging|deleting|refactoring|write|change|start|touch|make|do|implement|code|merge|delete|refactor)\b.*\b(?:any|anything|every|all|big|bigger|large|larger|major)\b",
        )
    });
    static LABEL_PATH: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:[\w-]+\s+){0,3}(?:overview|docs|documentation|architecture|runbooks?|guide|spec|specs|design|notes|readme|reference|changelog|faq|onboarding|setup|conventions|style guide|schema|playbook|adrs?):\s*(?:[\w.-]+/[\w./-]*|[\w-]+\.(?:md|rst|txt|adoc|pdf))",
        )
    });
    let m = s.mask.trim();
    let wish =
        lower.starts_with("i ") && WANT_KIND.is_match(m) && !points_at_hand(m) && !rejected_body(m);
    let check_in = lower.contains("before") && SHOW_BEFORE.is_match(m) && !only_deictic(m);
    let topic = if wish || check_in {
        MemoryType::Feedback
    } else if m.contains(':')
        && m.contains(['/', '.'])
        && LABEL_PATH.is_match(m)
        && !only_deictic(m)
    {
        MemoryType::Reference
    } else {
        return None;
    };
    let (whole, why) = split_why(s);
    Some(Candidate {
        topic,
        summary: whole.orig.trim().to_string(),
        why,
    })
}

/// "Could you stop wrapping every answer in a table?": asking to stop a habit is a standing
/// instruction, kept without the question.
fn stop_asking(s: &Masked) -> Option<Candidate> {
    static STOP: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:can|could|would|will) you (?:please\s+)?(?P<rest>(?:stop|quit)\s+\w+ing\s+[^?]{6,}?|(?:always|never)\s+[^?]{6,}?|not\s+\w+\s+[^?]{6,}?(?:anymore|any more|ever|by default|unless [^?]+))\s*\?\s*$",
        )
    });
    let c = STOP.captures(&s.mask)?;
    let rest = c.name("rest")?;
    let body = s.head(rest.end())?.tail(rest.start())?;
    if points_at_hand(body.mask.trim()) || sentence_is_noise(&body.mask.replace("you", "")) {
        return None;
    }
    let mut summary = body.orig.trim().to_string();
    if let Some(first) = summary.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    summary.push('.');
    Some(Candidate {
        topic: MemoryType::Feedback,
        summary,
        why: None,
    })
}

/// "Tests first, then implementation — that's how I want you to work here.": the tail says the
/// rest is how things are done.
fn how_we_work(s: &Masked) -> Option<Candidate> {
    static HOW: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"(?:^|[,;:.!]\s+|\s+[-–—]+\s+)(?:that's|that is|this is|it's|it is) (?:how|the way) (?:i|we) (?P<who>want you to|like you to|want it|like it|like things|want things|do (?:it|things)|work|roll|operate)\b",
        )
    });
    static KNOWN: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"(?:^|[,;:.!]\s+|\s+[-–—]+\s+)(?:that's|that is|this is|it's|it is) (?:a )?(?:known|long-standing|documented) (?:thing|issue|problem|limitation|quirk|flake)\b",
        )
    });
    // "Please don't use var, only let and const, is our rule.": the tail names it a rule.
    static RULE_TAIL: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"[,;]\s+(?:that |this |which )?(?:is|that's|this is|it's|it is) (?:our|the|a|the team's|a team|a house|a hard|an unwritten) (?:rule|convention|policy|standard|house rule|norm)\s*[.!]?$",
        )
    });
    if let Some(f) = RULE_TAIL.find(&s.mask) {
        let head = s.head(f.start())?;
        if head.mask.trim().split(' ').count() < 3 || head.mask.contains('?') {
            return None;
        }
        let topic = statement(&head)
            .or_else(|| by_shape(&head))
            .map_or(MemoryType::Project, |c| c.topic);
        let mut summary = head.orig.trim().to_string();
        summary.push('.');
        return Some(Candidate {
            topic,
            summary,
            why: None,
        });
    }
    // "Slack #deploys gets a message for every deploy, that's where to look."
    static WHERE_TO_LOOK: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"[,;:.!—-]\s+(?:that's|that is|this is|it's) where (?:to look|to find (?:it|them|things)|you'll find (?:it|them)|we look|you look|to check|it lives|they live)\s*[.!]?$",
        )
    });
    if let Some(f) = WHERE_TO_LOOK.find(&s.mask) {
        let head = s.head(f.start())?;
        if head.mask.trim().split(' ').count() >= 3 && !head.mask.contains('?') {
            let mut summary = head.orig.trim().to_string();
            summary.push('.');
            return Some(Candidate {
                topic: MemoryType::Reference,
                summary,
                why: None,
            });
        }
    }
    let (topic, f) = if let Some(c) = HOW.captures(&s.mask) {
        let who = c.name("who")?.as_str().to_ascii_lowercase();
        let topic = if who.contains("you") || who.contains("it") || who.contains("things") {
            MemoryType::Feedback
        } else {
            MemoryType::Project
        };
        (topic, c.get(0)?)
    } else {
        (MemoryType::Project, KNOWN.find(&s.mask)?)
    };
    let head = s.head(f.start())?;
    if head.mask.trim().split(' ').count() < 3 || head.mask.contains('?') {
        return None;
    }
    let mut summary = head
        .orig
        .trim()
        .trim_end_matches([',', ';', ':', ' ', '-', '–', '—'])
        .to_string();
    summary.push('.');
    Some(Candidate {
        topic,
        summary,
        why: None,
    })
}

/// Knowledge tools and places a pointer can name.
const PLACE: &str = r"(?:1password|lastpass|bitwarden|vault|notion|confluence|jira|linear|asana|trello|figma|miro|slack|discord|google drive|gdrive|google docs|dropbox|sharepoint|the wiki|our wiki|gitbook|sentry|datadog|grafana|kibana|pagerduty|opsgenie|backstage|artifactory|the handbook|the runbook|the readme|readme|storybook|swagger|postman|zendesk|intercom|freshdesk|servicenow|github issues|gitlab issues|bugzilla|youtrack|clickup|airtable|google sheets|mattermost|zulip|teams|the monorepo|a separate repo|the infra repo|the ops repo|#[a-z][\w-]+|URLx+|~?\.{0,2}/?[\w.-]+/[\w./-]*|[\w-]+\.(?:md|rst|txt|adoc|pdf|yaml|yml|toml|json|ipynb))";

/// The tools and places of [`PLACE`] as plain words, to test before compiling a pattern.
const PLACE_WORDS: &[&str] = words::PLACE_WORDS;

/// The topic of a clause by its shape, or `None`: noise or no durable shape.
fn shape_topic(s: &Masked, standing: bool) -> Option<MemoryType> {
    let m = s.mask.trim();
    let lower = m.to_ascii_lowercase();
    let first = first_word(m);
    if shape_reference(s, &lower) {
        return Some(MemoryType::Reference);
    }
    static WANT_ALWAYS: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^i (?:always |really )?(?:want|need|expect|prefer|like)\s+(?:a|an|the|some|my|[\w-]+s)\b.*\b(?:every (?:single )?time|each time|always|for (?:every|each|all|any)|on (?:every|each|all|any)|in (?:every|each|all|any)|by default|whenever|without exception)\b",
        )
    });
    let speaker = lower.starts_with("i ")
        || lower.starts_with("i'")
        || lower.starts_with("my ")
        || lower.starts_with("as a");
    if speaker && WANT_ALWAYS.is_match(m) {
        return Some(MemoryType::Feedback);
    }
    if speaker && shape_user(m) {
        return Some(MemoryType::User);
    }
    let team = words::SHAPE_TOPIC__TEAM;
    let team_start = words::SHAPE_TOPIC__TEAM_START
        .iter()
        .any(|w| lower.starts_with(w));
    if (team.contains(&first.as_str()) && (first.starts_with("we") || team_start)) && shape_we(m) {
        return Some(MemoryType::Project);
    }
    // "No Friday deploys.": a ban on a kind of release at a kind of time, a rule of the team.
    static NO_TIME: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^no (?:friday|weekend|late-night|night|holiday|saturday|sunday|monday|after-hours|evening|end-of-day) (?:deploys|deployments|releases|merges|pushes|migrations)\b",
        )
    });
    if lower.starts_with("no ") && NO_TIME.is_match(m) {
        return Some(MemoryType::Project);
    }
    if shape_imperative(m, &first, standing) || shape_verbless(m, &lower, standing) {
        return Some(MemoryType::Feedback);
    }
    // "Level designers edit the JSON level files by hand": what a role in the team does.
    static ROLE_HABIT: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:the |our |all )?(?:[\w-]+\s+)?(?:designers|developers|devs|engineers|testers|reviewers|admins|operators|analysts|maintainers|contributors|translators|artists|writers|editors|data scientists|qa|sres|on-call engineers|backend devs|frontend devs)\s+(?:(?:usually|always|only|never|all|also|mostly|normally|typically)\s+)*(?:don't\s+|do not\s+)?(?P<v>[a-z-]+)\s+\S",
        )
    });
    let roles = words::SHAPE_TOPIC__ROLES;
    if let Some(c) = has_any(&lower, roles)
        .then(|| ROLE_HABIT.captures(m))
        .flatten()
    {
        let v = c
            .name("v")
            .map_or(String::new(), |v| v.as_str().to_ascii_lowercase());
        if !MOMENT_VERBS.contains(&v.as_str())
            && !is_past_or_progressive(&v)
            && !matches!(
                v.as_str(),
                "are" | "is" | "were" | "report" | "complain" | "say"
            )
        {
            return Some(MemoryType::Project);
        }
    }
    if shape_noun_statement(m) {
        // "Go is new for me": about the user.
        static FOR_ME: LazyLock<Regex> = LazyLock::new(|| rei(r"\b(?:for|to) me\b"));
        if lower.contains(" me") && FOR_ME.is_match(m) {
            return Some(MemoryType::User);
        }
        return Some(MemoryType::Project);
    }
    None
}

/// "Runbooks are in the ops-handbook repo", "API keys are in 1Password", "Sentry project for the
/// app is called rn-prod", "Check the ADRs in docs/adr before …", "ask in #payments".
fn shape_reference(s: &Masked, lower: &str) -> bool {
    static ONE_OFF_URL: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"/(?:pull|pulls|merge_requests|commit|commits|compare|runs|jobs|builds|pipelines|actions/runs|issues|blob/[0-9a-f]{7,})/",
        )
    });
    static OWNED: LazyLock<Regex> = LazyLock::new(|| rei(r"^(?:my|your|his|her|their)\b"));
    let m = s.mask.trim();
    if ONE_OFF_URL.is_match(&s.orig) || OWNED.is_match(m) {
        return false;
    }
    static IS_IN: LazyLock<Regex> = LazyLock::new(|| {
        rei(&format!(
            r"^(?:(?:the|our|all|any|every)\s+)?(?:[\w.+#/'-]+\s+){{0,9}}?(?:is|are|lives?|sits?|is kept|are kept|is stored|are stored|goes|go|get posted|gets posted|is posted|are posted|come in|comes in|arrive|arrives|get filed|gets filed|are filed|is filed|are tracked|is tracked)\s+(?:only\s+|all\s+)?(?:in|at|on|under|inside|to|through|via)\s+(?:(?:the|our|a|its)\s+)?{PLACE}"
        ))
    });
    static CALLED: LazyLock<Regex> = LazyLock::new(|| {
        rei(&format!(
            r"^(?:(?:the|our)\s+)?(?:[\w.+#/'-]+\s+){{0,5}}?(?:{PLACE}|channel|bucket|project|board|space|workspace|vault|dashboard|repo|repository|sentry|slack|jira|linear|grafana|datadog)\s+(?:[\w.+#/'-]+\s+){{0,5}}?(?:is|are) (?:called|named)\s+\S"
        ))
    });
    static LOOK: LazyLock<Regex> = LazyLock::new(|| {
        rei(&format!(
            r"^(?:please\s+)?(?:always\s+)?(?:check|see|read|consult|look (?:at|in)|ask in|post in|ping|search)\s+(?:[\w.+#/'-]+\s+){{0,4}}?(?:in |on |at )?(?:the\s+)?{PLACE}.*\b(?:before|when|whenever|first|if|for|every|each|any)\b"
        ))
    });
    static TOOL_NAMES: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:are|is) tracked in (?:[A-Z]\w+|jira|linear|github issues|asana|trello)\b|^(?:bugs|issues|tickets|tasks|incidents)\b.*\b(?:are|is|go|live)\s+(?:in|on|to)\s+[A-Z]\w+",
        )
    });
    static LINKED: LazyLock<Regex> = LazyLock::new(|| {
        rei(&format!(
            r"\b(?:linked|documented|described|written up|explained|listed|pinned|bookmarked) (?:in|from|at|on)\s+(?:the\s+)?{PLACE}"
        ))
    });
    static PERSON_FOR: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i:\b(?:the )?(?:person|people|one|guy|contact|point of contact|go-to person|go-to|owner|expert)\s+(?:to ask|to talk to|to ping|you ask|for [\w\s-]{2,30}?|who (?:owns|knows|maintains|runs|wrote) [\w\s-]{2,30}?|responsible for [\w\s-]{2,30}?)\s+(?:is|are))\s+@?[A-Z][\w-]+",
        )
    });
    // Whether a PLACE can be named at all: a path, a channel, a URL, a file name or a tool.
    let place = m.contains(['/', '#'])
        || m.contains("URLx")
        || m.split(' ').any(|w| {
            let w = w.trim_end_matches(['.', ',', ';', ':', '!', ')']);
            w.rsplit_once('.').is_some_and(|(a, b)| {
                !a.is_empty() && b.len() >= 2 && b.chars().all(|c| c.is_ascii_alphabetic())
            })
        })
        || has_any(lower, PLACE_WORDS);
    // "Kibana has the app logs", "The Jira board for infra work is INFRA".
    static TOOL_HOLDS: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:kibana|grafana|datadog|sentry|splunk|loki|honeycomb|new relic|jaeger|pagerduty|jira|linear|notion|confluence|backstage|the wiki|our wiki)\s+(?:has|holds|keeps|stores|shows|contains)\s+(?:all\s+)?(?:the\s+|our\s+)?(?:[\w-]+\s+)?(?:logs|metrics|traces|dashboards|alerts|errors|docs|tickets|specs|designs|runbooks|incidents)\b",
        )
    });
    static TOOL_SPACE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i:^(?:the|our)\s+(?:[\w-]+\s+){0,2}?(?:jira|linear|slack|sentry|notion|confluence|grafana|datadog|github|gitlab|trello|asana)\s+(?:[\w-]+\s+)?(?:board|project|space|channel|repo|org|team|key|workspace|dashboard|queue)\b.*\b(?:is|are)\s+(?:called\s+|named\s+)?)[#@]?[A-Z][\w-]*",
        )
    });
    if has_any(lower, PLACE_WORDS) && (TOOL_HOLDS.is_match(m) || TOOL_SPACE.is_match(m)) {
        return true;
    }
    let person = has_any(lower, words::SHAPE_REFERENCE__PERSON);
    let named = lower.contains(" called ") || lower.contains(" named ");
    // "Prod config lives in SSM Parameter Store": where something lives, in any named store,
    // not only the known ones.
    static LIVES_IN_NAME: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i:^(?:(?:the|our|all)\s+)?(?:[\w.+#/'-]+\s+){0,5}?(?:lives?|is stored|are stored|is kept|are kept)\s+(?:only\s+)?in\s+(?:the\s+)?)(?-i:[A-Z])[\w-]*",
        )
    });
    if has_any(lower, words::SHAPE_REFERENCE__LIVES_IN) && LIVES_IN_NAME.is_match(m) {
        return true;
    }
    (place && (IS_IN.is_match(m) || LOOK.is_match(m) || LINKED.is_match(m)))
        || (person && PERSON_FOR.is_match(m))
        || (named && CALLED.is_match(m))
        || ((lower.contains("tracked in") || has_any(lower, words::SHAPE_REFERENCE__TRACKED))
            && TOOL_NAMES.is_match(m))
        || (has_any(lower, words::SHAPE_REFERENCE__QUESTION) && ASK_ABOUT.is_match(m))
}

/// "Any question about the payments API, ask Priya(, she wrote it)": the person to go to.
static ASK_ABOUT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i:^(?:(?:any|all|for (?:any|all)?\s*)\s*(?:[\w-]+\s+)?(?:questions?|issues?|problems?|doubts?)|anything|everything)\s+(?:about|on|with|regarding|around|related to)\s+[^,]{2,50},\s*(?:just\s+)?(?:ask|ping|talk to|check with|reach out to|go to))\s+@?[A-Z][\w-]+",
    )
});

fn ask_person(s: &Masked) -> Option<Candidate> {
    // "Who to ask about the data warehouse: Omar."
    static WHO_TO_ASK: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i:^(?:who|whom|the person) to (?:ask|ping|talk to|go to)\s+(?:about|for|regarding|on)\s+[^:?]{2,50}:)\s*@?[A-Z][\w-]+",
        )
    });
    if let Some(f) = WHO_TO_ASK
        .find(s.mask.trim_start())
        .filter(|f| !points_at_hand(f.as_str()))
    {
        let lead = s.mask.len() - s.mask.trim_start().len();
        let mut summary = s.orig.get(lead..lead + f.end())?.to_string();
        summary.push('.');
        return Some(Candidate {
            topic: MemoryType::Reference,
            summary,
            why: None,
        });
    }
    let f = ASK_ABOUT
        .find(s.mask.trim_start())
        .filter(|f| !points_at_hand(f.as_str()))?;
    let lead = s.mask.len() - s.mask.trim_start().len();
    let mut summary = s.orig.get(lead..lead + f.end())?.to_string();
    summary.push('.');
    Some(Candidate {
        topic: MemoryType::Reference,
        summary,
        why: None,
    })
}

/// Verbs that report the moment or a thought rather than a habit or a standing fact.
const MOMENT_VERBS: &[&str] = words::MOMENT_VERBS;

/// "I use Neovim with LSP", "I tend to review PRs on my phone", "I'm colorblind".
fn shape_user(m: &str) -> bool {
    static I_VERB: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^i (?:(?:usually|always|often|mostly|generally|normally|typically|rarely|mainly|only|also|personally)\s+)*(?:don't\s+|do not\s+|never\s+)?(?P<v>[a-z-]+)\s+\S",
        )
    });
    static I_AM: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^i(?:'m| am) (?:(?:also|really|very|pretty|quite|much|way|more|fairly|totally|completely|a lot|not)\s+)*(?:colou?r ?blind|dyslexic|left-handed|deaf|hard of hearing|remote|based (?:in|out of)|located in|from [A-Z]|(?:new|used|allergic|native) to|(?:comfortable|familiar|fluent|proficient|experienced|unfamiliar|at home) (?:with|in)|(?:good|bad|great|terrible|better|worse|decent|rusty|weak|strong) (?:at|with|in)|an? (?:[\w+#.-]+ ){0,3}?(?:person|guy|gal|dev|developer|engineer|programmer|learner|reader|user|fan|nerd|type|speaker)\b|(?:non-)?technical(?:-ish)?|self-taught|(?:fairly |very |pretty )?junior|(?:fairly |very |pretty )?senior|in charge of|responsible for|on call|the only|(?:most |more |least )?productive (?:in|at|during)|(?:fine|ok|okay|happy|good) with (?:long|short|detailed|terse|brief|more|less|fewer|verbose|lots of|a lot of|big|small)|a (?:morning|night|early) (?:person|owl|bird)|a night owl)\b",
        )
    });
    static MY_RULE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^my (?:personal )?(?:preference|rule of thumb|default|style|habit|approach)\s*(?:is|:)",
        )
    });
    if MY_RULE.is_match(m) {
        return true;
    }
    static MY: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^my (?:[\w-]+ )?(?:background|setup|machine|laptop|os|editor|ide|shell|terminal|timezone|time zone|native language|first language|role|job|day job|stack|keyboard|screen|monitor|specialty|focus|workflow|hours|working hours|schedule|experience|team|company|employer|github|handle|username|eyesight|vision|internet|connection|bandwidth)\b\s+(?:is|are|has|runs|uses|isn't|is not)\b",
        )
    });
    static I_HAVE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^i(?:'ve| have)(?: got)? (?:adhd|add|dyslexia|rsi|autism|low vision|poor eyesight|bad eyesight|colou?r ?blindness|tinnitus|a (?:visual|hearing|motor) impairment|a slow (?:laptop|machine|connection)|a small screen|two monitors|one monitor|a kid|kids|young kids)\b",
        )
    });
    // "As an open source maintainer I review PRs on weekends", "I am DBA for 12 years".
    static AS_ROLE: LazyLock<Regex> = LazyLock::new(|| {
        rei(&format!(
            r"^as an? (?:[\w+#.-]+\s+){{0,3}}?{ROLE}s?\b,?\s+i\b|^i(?:'m| am|'ve been| have been) (?:an? |the )?(?:[\w+#.-]+\s+){{0,2}}?{ROLE}\b"
        ))
    });
    // "I'd rather have a boring solution than a clever one": a general preference.
    // "I have a strong preference for explicit code over magic", "I don't care about
    // micro-optimizations": a general taste.
    static TASTE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^i (?:have a (?:strong |slight |clear |big )?(?:preference|soft spot|bias|weakness) for|(?:really )?(?:don't|do not) (?:really )?care (?:much )?about [a-z][\w-]*s\b)",
        )
    });
    static CHOSEN: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\bthe (?:[\w-]+ )?(?:version|one|option|approach|variant|draft|proposal|suggestion|solution|alternative)\b",
        )
    });
    if TASTE.is_match(m) && !points_at_hand(m) && !CHOSEN.is_match(m) {
        return true;
    }
    static RATHER: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^i(?:'d| would)(?: much)? rather (?:have|use|write|read|see|get|keep|pay|ship|spend|go with)\b.*\bthan\b",
        )
    });
    // "I know React and Express but not much about databases": what the user knows, named.
    static I_KNOW: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"^(?i:i (?:only |mostly |mainly |also |really |barely |don't |do not )?(?:know|speak|read|write)) (?:[A-Z][\w.+#-]*|(?i:(?:a lot|a bit|nothing|little|not much|very little) about [a-z]))",
        )
    });
    if I_AM.is_match(m)
        || I_KNOW.is_match(m)
        || MY.is_match(m)
        || I_HAVE.is_match(m)
        || AS_ROLE.is_match(m)
        || RATHER.is_match(m)
    {
        return true;
    }
    let Some(c) = I_VERB.captures(m) else {
        return false;
    };
    let v = c
        .name("v")
        .map_or(String::new(), |v| v.as_str().to_ascii_lowercase());
    !MOMENT_VERBS.contains(&v.as_str()) && !is_past_or_progressive(&v)
}

fn is_past_or_progressive(v: &str) -> bool {
    (v.len() > 3 && v.ends_with("ed") && !v.ends_with("eed"))
        || (v.len() > 4 && v.ends_with("ing") && !matches!(v, "bring" | "sing" | "string"))
}

/// "We do trunk-based development", "We're a small team of four", "We don't use ORMs".
fn shape_we(m: &str) -> bool {
    static WE_VERB: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:we|the team|our team|the whole team|everyone here|everybody here|most of us|all of us)\s+(?:(?:usually|always|often|mostly|generally|normally|typically|rarely|mainly|only|also|all|strictly|basically|never)\s+)*(?:don't\s+|do not\s+|doesn't\s+|does not\s+)?(?P<v>[a-z-]+)\s+(?P<obj>\S+)",
        )
    });
    static WE_ARE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^we(?:'re| are) (?:(?:a|an)\s+(?:[\w-]+\s+){0,3}?(?:team|shop|company|startup|org|organization|group|agency|studio|lab|project)\b|(?:fully |mostly |all )?(?:remote|distributed|remote-first|async|on-prem|on prem|in the cloud|cloud-only|open source|a monorepo)\b|(?:\w+\s+)?(?:compliant|certified|regulated|audited)\b|bound by\b|based in\b)",
        )
    });
    // "We are following the hexagonal architecture in all services", "We're using pnpm": a
    // progressive of adopting something is how the team works, not what it does right now.
    static WE_ADOPT: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^we(?:'re| are) (?:(?:still|currently|now|also|all)\s+)?(?:following|standardi[sz]ed on)\s+(?:the|our|an?)\s+(?:[\w.+#/-]+\s+){0,3}?(?:architecture|patterns?|guide|guidelines|style|conventions?|standards?|spec|process|approach|model|principles|methodology|workflow|rules)\b",
        )
    });
    // "The team agreed to keep PRs under 400 lines": a decision that stands.
    static AGREED: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:we|the team|our team|the whole team|everyone)\s+(?:all\s+)?(?:agreed|decided)\s+(?:to|that|on)\s+(?:always\s+|never\s+)?[a-z]",
        )
    });
    let agreed = AGREED.is_match(m) && {
        // A pick among options or a plan for a while is not a standing decision.
        let l = m.to_ascii_lowercase();
        !has_any(&l, words::SHAPE_WE__ONE_OFF)
    };
    if WE_ARE.is_match(m) || WE_ADOPT.is_match(m) || agreed {
        return true;
    }
    let Some(c) = WE_VERB.captures(m) else {
        return false;
    };
    let v = c
        .name("v")
        .map_or(String::new(), |v| v.as_str().to_ascii_lowercase());
    let obj = c
        .name("obj")
        .map_or(String::new(), |v| v.as_str().to_ascii_lowercase());
    if v == "have" {
        // "We have two environments" — not "we have a problem / to fix …".
        // "We have used pnpm since 2021" tells the past.
        return !matches!(
            obj.as_str(),
            "to" | "a" | "an" | "got" | "been" | "no" | "done" | "made"
        ) && !is_past_or_progressive(&obj);
    }
    if v.ends_with('s') && !v.ends_with("ss") && m.to_ascii_lowercase().starts_with("we ") {
        return false; // "we runs" is not English; likely a noun
    }
    !MOMENT_VERBS.contains(&v.as_str())
        && !is_past_or_progressive(&v)
        && !matches!(
            v.as_str(),
            "are" | "is" | "re" | "ve" | "ll" | "d" | "talk" | "discussed" | "agreed" | "decided"
        )
}

/// "Keep firmware code free of dynamic allocation", "Use kebab-case for all new file names",
/// "Skip the long explanations", "Don't reach for lodash": an imperative about a kind of thing.
fn shape_imperative(m: &str, first: &str, standing: bool) -> bool {
    const VERBS: &[&str] = words::SHAPE_IMPERATIVE__VERBS;
    if !VERBS.contains(&first) && !starts_with_work_verb(m) {
        return false;
    }
    static STYLE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:just\s+)?(?:always\s+)?(?P<v>use|prefer|avoid|keep|put|name|format|prefix|suffix|wrap|follow|stick to|stick with|default to|indent|spell|treat|assume|reach for|go with|favou?r|stay on|stay with|target|lean on|rely on|mock|stub|fake|respond with|answer with|reply with|lead with|start with|begin with|end with|open with|go easy on|go light on|go heavy on|lay off|cut down on|hold back on|be generous with|be sparing with)\s+(?P<next>[\w.+#/'-]+)",
        )
    });
    static SCOPED: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:just\s+)?(?:always\s+)?(?:add|include|write|check|test|document|comment|log|validate|handle|return|raise|throw|sort|pin|label|tag|mark|cite|link|mention|explain|show|list|run|update|bump|review|lint|type|annotate|give|ask|tell|ping|notify|sign|squash|rebase|split|separate|group|order|cap|limit|strip|escape|sanitize|sanitise|encrypt|hash|cache|version|translate|localize|localise|test|measure|benchmark|profile)\s+.*?\b(?:all|every|each|any)\s+[\w.+#/-]+|\b(?:every single time|every time|each time|whenever|by default|at all times|in general|without exception|no exceptions|no matter what|unless\b|anymore|any more)\b",
        )
    });
    static RESPONSE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:just\s+)?(?:skip|drop|omit|leave out|cut|avoid|spare me|no need for|don't give me|don't add|don't include|don't write)\s+(?:the\s+|any\s+|all\s+)?(?:[\w-]+\s+){0,2}?(?:explanations?|answers?|responses?|replies|summaries|summary|recaps?|tables?|emojis?|bullet points|bullets|headings|caveats|disclaimers|apologies|preambles?|intros?|introductions?|pleasantries|small talk|fluff|filler|boilerplate|essays?|walls? of text|lectures?|tutorials?|background|theory)\b",
        )
    });
    static DONT: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:don't|do not|never)\s+(?:ever\s+)?(?P<v>[a-z-]+)\s+(?:for\s+|to\s+|on\s+|in\s+|with\s+|into\s+|about\s+)?(?P<obj>[\w.+#/'-]+)",
        )
    });
    const NOT_STYLE_NEXT: &[&str] = words::SHAPE_IMPERATIVE__NOT_STYLE_NEXT;
    const ONE_OFF: &[&str] = words::SHAPE_IMPERATIVE__ONE_OFF;
    // "Explain things to me like I'm new to Kubernetes": how to explain anything.
    static EXPLAIN_ANYTHING: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:always\s+)?(?:explain|describe|walk me through|teach me)\s+(?:things|everything|stuff|concepts|new concepts|code|anything)\b",
        )
    });
    // "Write SQL keywords in uppercase": a spelling or case convention.
    static CASE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:always\s+)?(?:write|spell|name|format|keep|put|use)\s+.*\b(?:in|as|using)\s+(?:upper ?case|lower ?case|camel ?case|snake_case|snake case|kebab-case|kebab case|pascal ?case|title case|sentence case|all caps|caps|plain english|iso 8601|iso format|utc|24-hour|imperative mood|the imperative mood|present tense|active voice)\b",
        )
    });
    // "Keep the README in sync with the CLI flags": something kept matching something else.
    static IN_SYNC: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:always\s+)?keep\s+(?:the\s+|our\s+|all\s+)?[\w.-]+(?:\s+[\w.-]+)?\s+(?:in sync|up to date|consistent|aligned|in line)\s+with\b",
        )
    });
    // "Be blunt with code review comments": how to be, not a thing to do now.
    static BE_STYLE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:always\s+)?be (?:more |very |really |extra )?(?:blunt|concise|brief|direct|honest|explicit|critical|terse|specific|precise|thorough|pragmatic|skeptical|strict|pedantic|opinionated|conservative)\b",
        )
    });
    if BE_STYLE.is_match(m) && !points_at_hand(m) {
        return true;
    }
    if RESPONSE.is_match(m)
        || EXPLAIN_ANYTHING.is_match(m)
        || CASE.is_match(m)
        || IN_SYNC.is_match(m)
    {
        return true;
    }
    // "Stick with the existing pattern in new modules": the scope is every new thing of a kind.
    static NEW_SCOPE: LazyLock<Regex> =
        LazyLock::new(|| rei(r"\b(?:in|for|to|across|on|with) (?:all |every |any )?new [\w-]+s\b"));
    if STYLE.is_match(m) && NEW_SCOPE.is_match(m) {
        return true;
    }
    if standing && STYLE.is_match(m) {
        return true;
    }
    if let Some(c) = STYLE.captures(m) {
        let next = c
            .name("next")
            .map_or(String::new(), |v| v.as_str().to_ascii_lowercase());
        if !NOT_STYLE_NEXT.contains(&next.as_str()) && !next.chars().all(|c| c.is_ascii_digit()) {
            return true;
        }
    }
    if starts_with_work_verb(m) && SCOPED.is_match(m) {
        return true;
    }
    if let Some(c) = DONT.captures(m) {
        let v = c
            .name("v")
            .map_or(String::new(), |v| v.as_str().to_ascii_lowercase());
        let obj = c
            .name("obj")
            .map_or(String::new(), |v| v.as_str().to_ascii_lowercase());
        // "Don't bother with Windows support": a kind of work never wanted.
        static BOTHER_WITH: LazyLock<Regex> = LazyLock::new(|| {
            rei(
                r"^(?:please\s+)?(?:don't|do not|never) bother (?:with|about) (?:[\w.+#-]+ ){0,2}?(?:support|compatibility|tests|testing|docs|documentation|comments|polyfills|backwards compatibility|edge cases|benchmarks|type hints|i18n|translations)\b",
            )
        });
        if BOTHER_WITH.is_match(m) {
            return true;
        }
        if !ONE_OFF.contains(&v.as_str())
            && !is_past_or_progressive(&v)
            && !matches!(obj.as_str(), "yet" | "until" | "till" | "before")
        {
            return true;
        }
        if standing && !is_past_or_progressive(&v) {
            return true;
        }
    }
    // "Ping me before you touch anything in infra/": a check-in at a recurring moment.
    static CHECK_IN: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:always\s+)?(?:ping|ask|tell|check with|warn|notify|consult|message|call) me (?:first )?(?:before|when|whenever|if|every time|each time|after) (?:you|we|anyone|someone) (?:\w+ )?(?:touch|change|add|delete|run|deploy|push|merge|modify|edit|remove|upgrade|install|commit|open|create|rename|refactor|drop|migrate|rewrite|release|publish|bump|disable)\s+(?:(?:any|anything|something|a|an|new|our|shared)\b|[\w-]+s\b)",
        )
    });
    if CHECK_IN.is_match(m) {
        return true;
    }
    static SAY: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:please\s+)?(?:just\s+)?(?:say|ask|tell me|mention|flag|admit|stop|pause|warn me|double-check|check)\b",
        )
    });
    standing && (starts_with_work_verb(m) || SAY.is_match(m)) && !object_is_pronoun(m)
}

/// "Type hints on all public functions please", "comments in English only please", "no force
/// pushes" after "going forward": a request with no verb that names a kind of thing.
fn shape_verbless(m: &str, lower: &str, standing: bool) -> bool {
    // "Readability over cleverness, always.": a preference between two kinds of thing.
    static OVER: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:[\w.+#-]+\s+){0,2}?[\w.+#-]+ over (?:[\w.+#-]+\s*){1,3}[,.;]?\s*(?:always|every time|any day|by default|please|in general|everywhere)[.!]?$",
        )
    });
    if lower.contains(" over ") && OVER.is_match(m) {
        return true;
    }

    let no = words::SHAPE_VERBLESS__NONE
        .iter()
        .any(|w| lower.starts_with(w));
    if !(lower.contains("please") || (standing && no)) {
        return false;
    }
    static SCOPE_PLEASE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:[\w.+#/'-]+\s+){0,4}?[\w.+#/'-]+\s+(?:(?:on|in|for|to|under|across|with|everywhere)\s+(?:all|every|each|any|new)\b.*|.*\bonly\b.*|(?:always|everywhere|by default)\b.*)\bplease[.!]?$",
        )
    });
    static NO_KIND: LazyLock<Regex> = LazyLock::new(|| {
        rei(r"^(?:no|zero|never any)\s+(?:[\w.+#/'-]+\s+){0,3}?[\w.+#/'-]*(?:s|ing)\b")
    });
    static VERB: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did|can|could|will|would|should|must)\b",
        )
    });
    static STYLE_PLEASE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:short|shorter|brief|briefer|concise|terse|detailed|longer|simple|plain|plain-text|fewer|less|more)\s+(?:[\w-]+\s+)?(?:answers|responses|replies|explanations|summaries|messages|commit messages|comments|words|text|code|emojis|questions|examples|diffs)\b.*\bplease[.!]?$",
        )
    });
    if VERB.is_match(m) {
        return false;
    }
    if STYLE_PLEASE.is_match(m) {
        return true;
    }
    SCOPE_PLEASE.is_match(m) || (standing && NO_KIND.is_match(m))
}

/// "Backend is Django 4.2", "The ML pipeline trains on the last 90 days of events", "Model
/// checkpoints are saved to S3 every 500 steps", "Feature branches live at most two days": a
/// named part of the project and what it is or does, in the present.
fn shape_noun_statement(m: &str) -> bool {
    static AUX: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?P<subj>(?:[\w.+#/'-]+\s+){0,5}?[\w.+#/'-]+)\s+(?P<v>is|are|has|have|doesn't|don't|isn't|aren't|can't|cannot|must|mustn't|should|shouldn't|will|won't|can|may|never|only|always|usually|needs|need|gets|get|runs|run|lives|live|uses|use|goes|go|stays|stay|takes|take|expires|expire|lasts|last|ships|ship|requires|require|follows|follow|depends|depend|relies|rely|talks|talk|points|point|syncs|sync|owns|own|handles|handle|holds|hold|contains|contain|reads|read|writes|write|sends|send|stores|store|hits|hit|serves|serve|comes|come|speaks|speak|trains|train|ticks|tick|targets|target|supports|support|blocks|block|wins|win|shares|share|sits|sit|pages|page|notifies|notify|triggers|trigger|feeds|feed|publishes|publish|consumes|consume|routes|route|wraps|wrap|happens|happen|lands|land|starts|start|ends|end|begins|begin)\s+(?P<rest>.+)",
        )
    });
    static BAD_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:(?:it|this|that|there|they|he|she|these|those|what|which|who|i|you|we|here|something|someone|somebody|anything|everything|nothing|one|mine|yours|all of this)\b|the (?:pr|test|tests|build|deploy|bug|error|issue|fix|output|result|results|number|numbers|chart|button|page|function|file|script|query|logs?|diff|patch|commit|branch|change|changes|migration|run|job|app|site|screen|code|thing|problem|crash|warning|warnings|endpoint|request|response|model|modal|form|call|link|download|upload|server|container|pod|image|cache|queue|cpu|memory|disk)\b|(?:my|your) )",
        )
    });
    static NOISE_PREDICATE: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:a bit |kind of |slightly )?off\b|\b(?:looks?|seems?|is|are|feels?) (?:a bit |kind of |slightly )?off\b|\b(?:too|wrong|correct|right|weird|strange|odd|ugly|messy|slow|slower|faster|better|worse|huge|tiny|empty|null|undefined|nil|blank|duplicated|stale|out of date|confusing|unreadable|hard to read|broken|buggy|flaky|a mess|a problem|a conflict|conflicts|a typo|an? (?:bug|error|issue|regression)|missing|gone|unused|dead|deprecated now|not (?:loading|showing|rendering|working|updating|found|there|set|defined)|been|there|returns? (?:a |an )?(?:\d{3}|error|errors|null|nil|undefined|nothing|empty|wrong|false|none)|throws?|raises?|lagging|laggy|spiking|leaking|down|up again|pending|waiting|stuck|idle|red|green|ok|okay|fine|good|bad|great|awesome|cool|nice|perfect|done|ready|finished|merged|deployed|live now|full|overloaded|out of (?:disk|memory|space|quota|sync|credits)|in (?:review|progress|draft|qa|testing|flight)|in a (?:meeting|call)|on (?:vacation|holiday|leave|pto)|out sick|ooo|(?:till|until|by) \d+|(?:can't|cannot|couldn't|can not) (?:reach|access|log ?in|connect|see|open|load|find)|takes? forever|taking forever|takes? ages|error \d{3})\b|^(?:forever|ages|too long)\b|\d+\s?(?:%|fps\b)|\blike \d|\b(?:is|are) (?:way |much |a bit |kind of |really |super |very |pretty )",
        )
    });
    // "The recommender retrains weekly from a snapshot": a singular named part, a verb in -s,
    // then how or when.
    static S_VERB: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?:the|our)\s+(?:[\w.+#/-]+\s+){0,2}?[\w.+#/-]*[^s\W]\s+[a-z]{3,}[^s\W]s\s+(?:(?:off|up|out|down)\s+)?(?:(?:weekly|daily|nightly|hourly|monthly|yearly|automatically|once|twice|only|always|every|each|on|at|in|from|to|with|via|through|against|into|behind|before|after|per)\b|(?:[\w.+#/-]+\s+){1,3}?(?:every|each|daily|weekly|nightly|hourly|monthly|automatically|for (?:all|every|each)|into|onto|for \d+ (?:seconds|minutes|hours|days|weeks))\b)",
        )
    });
    let lower = m.to_ascii_lowercase();
    // "Staging resets every Sunday night": a bare name (capitalised, not a work verb) does the
    // same as "the staging cluster".
    static BARE_S_VERB: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"^[A-Z][\w.+#/-]*[^s\W]\s+[a-z]{3,}[^s\W]s\s+(?:(?:off|up|out|down)\s+)?(?:(?:weekly|daily|nightly|hourly|monthly|yearly|automatically|once|twice|only|always|every|each|on|at|in|from|to|with|via|through|against|into|behind|before|after|per)\b|(?:[\w.+#/-]+\s+){1,3}?(?:every|each|daily|weekly|nightly|hourly|monthly|automatically|for (?:all|every|each)|into|onto|for \d+ (?:seconds|minutes|hours|days|weeks))\b)",
        )
    });
    let bare = !lower.starts_with("the ")
        && !lower.starts_with("our ")
        && !starts_with_work_verb(m)
        && !starts_with_scope(m)
        && !lower.contains("please")
        && BARE_S_VERB.is_match(m);
    let s_verb = (bare
        || ((lower.starts_with("the ") || lower.starts_with("our ")) && S_VERB.is_match(m)))
        && !BAD_SUBJECT.is_match(m)
        && !NOISE_PREDICATE.is_match(m);
    // "Tests that hit the network are marked @slow": the verb after the relative clause.
    static KIND_THAT_FULL: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^(?P<subj>(?:all |any |the )?[a-z][\w-]*s (?:that|which|who) [a-z]+s?(?:\s+[\w.+#/'-]+){0,5}?)\s+(?P<v>are|must|should|get|need|run|live|go|stay|have|can't|cannot|never|always)\s+(?P<rest>.+)",
        )
    });
    let relative = has_any(&lower, words::SHAPE_NOUN_STATEMENT__RELATIVE);
    let Some(c) = relative
        .then(|| KIND_THAT_FULL.captures(m))
        .flatten()
        .or_else(|| AUX.captures(m))
    else {
        return s_verb;
    };
    if s_verb {
        return true;
    }
    let subj = c.name("subj").map_or("", |v| v.as_str());
    // "this service is Go 1.22": the project's own part, not a deictic.
    static THIS_PART: LazyLock<Regex> = LazyLock::new(|| {
        rei(
            r"^this (?:repo|repository|project|codebase|service|app|application|library|crate|package|monorepo|team|company|cluster|api|backend|frontend|site)\b",
        )
    });
    let this_part = subj.to_ascii_lowercase().starts_with("this ") && THIS_PART.is_match(subj);
    let v = c
        .name("v")
        .map_or(String::new(), |v| v.as_str().to_ascii_lowercase());
    let rest = c.name("rest").map_or("", |v| v.as_str());
    static CLAUSE_IN_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
        rei(r"\b(?:that|which|who|whose|where|when|if|to|a|an|my|your|some|we|you|i|they)\b")
    });
    // "Tests that hit the network are marked @slow": a kind of thing named by what it does.
    static KIND_THAT: LazyLock<Regex> =
        LazyLock::new(|| rei(r"^(?:all |any |the )?[a-z][\w-]*s (?:that|which|who) [a-z]+s? "));
    let kind_that = relative && KIND_THAT.is_match(subj) && !starts_with_work_verb(subj);
    let universal_subject = {
        let l = subj.to_ascii_lowercase();
        (l.starts_with("anything ") || l.starts_with("everything ")) && l.split(' ').count() >= 2
    };
    if (BAD_SUBJECT.is_match(subj) && !this_part && !universal_subject)
        || subj.split(' ').count() > 6
        || (starts_with_work_verb(subj) && CLAUSE_IN_SUBJECT.is_match(subj))
        || CLAUSE_IN_SUBJECT.find_iter(subj).any(|f| {
            let w = f.as_str().to_ascii_lowercase();
            // "Anything that touches money uses Decimal": every such thing, named by what it does.
            if (kind_that || universal_subject) && matches!(w.as_str(), "that" | "which" | "who") {
                return false;
            }
            matches!(
                w.as_str(),
                "that"
                    | "which"
                    | "who"
                    | "whose"
                    | "where"
                    | "when"
                    | "if"
                    | "we"
                    | "you"
                    | "i"
                    | "they"
            )
        })
    {
        return false;
    }
    // A plural subject takes the plain verb ("branches live"), a singular the -s form; a
    // mismatch means the "verb" is a noun ("model checkpoints").
    // The head noun decides: "alerts for the ingest pipeline", "staging and prod".
    let subj_lower = subj.to_ascii_lowercase();
    let head = subj_lower
        .split([' '])
        .take_while(|w| {
            !matches!(
                *w,
                "for" | "of" | "in" | "from" | "on" | "with" | "that" | "which" | "who"
            )
        })
        .last()
        .unwrap_or_default()
        .to_string();
    let plural_subject = head.ends_with('s') || subj_lower.contains(" and ");
    let plain = !v.ends_with('s') || matches!(v.as_str(), "is" | "has" | "always" | "needs");
    let copula = matches!(
        v.as_str(),
        "is" | "are"
            | "has"
            | "have"
            | "doesn't"
            | "don't"
            | "isn't"
            | "aren't"
            | "can't"
            | "cannot"
            | "must"
            | "mustn't"
            | "should"
            | "shouldn't"
            | "will"
            | "won't"
            | "can"
            | "may"
            | "never"
            | "only"
            | "always"
            | "usually"
            | "needs"
    );
    if !copula && plain && !plural_subject {
        return false;
    }
    if !copula && !plain && plural_subject && !subj.contains(' ') {
        return false;
    }
    if v == "has" || v == "have" {
        let first = rest
            .split(' ')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if matches!(first.as_str(), "been" | "a" | "an" | "some" | "got" | "to") {
            return false;
        }
    }
    // "The load balancer is returning 503s": a progressive tells what happens now (but "is
    // using Postgres" is how it is); "The email never arrived": a past.
    let next = rest
        .split(' ')
        .next()
        .unwrap_or_default()
        .trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
        .to_ascii_lowercase();
    let progressive = matches!(v.as_str(), "is" | "are" | "isn't" | "aren't")
        && next.len() > 4
        && next.ends_with("ing")
        && !matches!(
            next.as_str(),
            "using" | "running" | "targeting" | "serving" | "hosting" | "supporting" | "following"
        );
    let past_after_adverb = matches!(v.as_str(), "never" | "always" | "only" | "usually")
        && (is_past_or_progressive(&next)
            || matches!(
                next.as_str(),
                "was" | "were" | "had" | "did" | "got" | "went" | "came" | "ran"
            ));
    // "A customer can't reach the site": something failing for someone.
    // "Storybook won't start locally", "CI can't get the OIDC token": something failing.
    let failing = matches!(
        v.as_str(),
        "can't" | "cannot" | "won't" | "doesn't" | "couldn't"
    ) && matches!(
        next.as_str(),
        "start"
            | "load"
            | "boot"
            | "compile"
            | "connect"
            | "open"
            | "get"
            | "find"
            | "build"
            | "install"
            | "resolve"
    );
    if failing {
        return false;
    }
    let one_of = {
        let l = subj.to_ascii_lowercase();
        words::SHAPE_NOUN_STATEMENT__ONE_OF
            .iter()
            .any(|w| l.starts_with(w))
    };
    let cannot = one_of
        && matches!(v.as_str(), "can't" | "cannot")
        && matches!(
            next.as_str(),
            "reach" | "access" | "log" | "login" | "connect" | "see" | "open" | "load" | "find"
        );
    if progressive || past_after_adverb || cannot {
        return false;
    }
    // "marked @slow", "tagged flaky": a label, not a state.
    static LABEL: LazyLock<Regex> = LazyLock::new(|| {
        rei(r"\b(?:marked|tagged|labell?ed|flagged|named|called) (?:as )?@?[\w-]+")
    });
    let rest = if has_any(
        &rest.to_ascii_lowercase(),
        words::SHAPE_NOUN_STATEMENT__MARKED,
    ) {
        LABEL.replace_all(rest, "labelled X")
    } else {
        std::borrow::Cow::Borrowed(rest)
    };
    let rest = rest.replace("dead-letter", "dlq");
    !NOISE_PREDICATE.is_match(&rest) && !rest.contains('?')
}
