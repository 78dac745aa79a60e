//! A change to a JSON file written as a change to its text: the members and array elements a
//! change adds or removes are spliced in or cut out where they are, and a value that changed
//! otherwise is rewritten in its place, so every byte the change does not touch — a person's
//! indentation, inline arrays, key spacing, line breaks — stays as it was (docs/DESIGN.md,
//! "Agent integration"). [`splice`] checks its own result: it returns text only when that text
//! parses to exactly the new value, and `None` (the caller writes the whole file) otherwise.

use serde_json::Value;

/// `original` (the text of `old`) changed into a text of `new`, touching only what differs;
/// `None` when the text is not one this reader follows or the result would not be `new`.
pub fn splice(original: &str, old: &Value, new: &Value) -> Option<String> {
    let layout = Layout::of(original);
    let root = Node::parse(original)?;
    // A file that is only `{}` or `[]` has no layout of a person's to keep: laid out as new.
    if root.members.is_empty() && root.elements.is_empty() {
        return None;
    }
    let mut edits = Vec::new();
    diff(original, &root, old, new, &layout, &mut edits)?;
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(original.len() + 256);
    let mut at = 0;
    for (start, end, text) in edits {
        if start < at {
            return None;
        }
        out.push_str(original.get(at..start)?);
        out.push_str(&text);
        at = end;
    }
    out.push_str(original.get(at..)?);
    let reread: Value = serde_json::from_str(&out).ok()?;
    (reread == *new && same_order(&reread, new)).then_some(out)
}

/// Whether every object in `a` and `b` lists its keys in the same order (`==` on maps does
/// not look at order).
fn same_order(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.keys().eq(y.keys()) && x.values().zip(y.values()).all(|(p, q)| same_order(p, q))
        }
        (Value::Array(x), Value::Array(y)) => x.iter().zip(y).all(|(p, q)| same_order(p, q)),
        _ => true,
    }
}

/// How the file is laid out: its indentation unit and line break.
struct Layout {
    unit: String,
    newline: &'static str,
}

impl Layout {
    fn of(text: &str) -> Layout {
        let unit = text
            .lines()
            .skip(1)
            .find_map(|l| {
                let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
                (!ws.is_empty()).then_some(ws)
            })
            .unwrap_or_else(|| "  ".to_string());
        // CRLF only when every line break is one (as `agent_settings::to_bytes` decides).
        let breaks = text.matches('\n').count();
        let newline = if breaks > 0 && text.matches("\r\n").count() == breaks {
            "\r\n"
        } else {
            "\n"
        };
        Layout { unit, newline }
    }

    /// `value` written at an indentation of `indent`: pretty when `pretty`, else on one line.
    fn render(&self, value: &Value, indent: &str, pretty: bool) -> String {
        if !pretty {
            return serde_json::to_string(value).unwrap_or_default();
        }
        // serde_json indents by two spaces; a JSON string never holds a raw line break, so each
        // line's leading spaces are its depth.
        let two = serde_json::to_string_pretty(value).unwrap_or_default();
        let text: Vec<String> = two
            .lines()
            .map(|l| {
                let spaces = l.len() - l.trim_start_matches(' ').len();
                format!("{}{}", self.unit.repeat(spaces / 2), &l[spaces..])
            })
            .collect();
        let text = text.join("\n");
        text.replace('\n', &format!("{}{indent}", self.newline))
    }
}

/// A JSON value's place in the text: its byte span, and for an object its members (key, start
/// of the key, the member's value), for an array its elements.
struct Node {
    start: usize,
    end: usize,
    members: Vec<(String, usize, Node)>,
    elements: Vec<Node>,
}

impl Node {
    /// The text span of each item: an object's members (key to end of value) or an array's
    /// elements.
    fn item_spans(&self) -> Vec<(usize, usize)> {
        if self.members.is_empty() {
            self.elements.iter().map(|v| (v.start, v.end)).collect()
        } else {
            self.members.iter().map(|(_, s, v)| (*s, v.end)).collect()
        }
    }

    fn parse(text: &str) -> Option<Node> {
        let b = text.as_bytes();
        let mut i = skip_ws(b, 0);
        let node = value(text, &mut i)?;
        (skip_ws(b, i) == b.len()).then_some(node)
    }
}

/// The index of the first byte at or after `i` that is not JSON whitespace (space, tab, line
/// feed, carriage return). Shared with the MCP server's request reader, which scans the head
/// of a request too large to parse.
pub fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        i += 1;
    }
    i
}

/// The index just after the quote that closes the JSON string opening at `start` (a `"`), or
/// `None` when the string does not close within `b`. Escapes are skipped, not checked.
pub fn string_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn value(text: &str, i: &mut usize) -> Option<Node> {
    let b = text.as_bytes();
    let start = *i;
    let mut node = Node {
        start,
        end: start,
        members: Vec::new(),
        elements: Vec::new(),
    };
    match *b.get(start)? {
        b'{' => {
            *i = skip_ws(b, start + 1);
            if b.get(*i) == Some(&b'}') {
                *i += 1;
            } else {
                loop {
                    let key_start = *i;
                    if b.get(key_start) != Some(&b'"') {
                        return None;
                    }
                    let key_end = string_end(b, key_start)?;
                    let key: String = serde_json::from_str(text.get(key_start..key_end)?).ok()?;
                    *i = skip_ws(b, key_end);
                    if b.get(*i) != Some(&b':') {
                        return None;
                    }
                    *i = skip_ws(b, *i + 1);
                    let v = value(text, i)?;
                    node.members.push((key, key_start, v));
                    *i = skip_ws(b, *i);
                    match b.get(*i)? {
                        b',' => *i = skip_ws(b, *i + 1),
                        b'}' => {
                            *i += 1;
                            break;
                        }
                        _ => return None,
                    }
                }
            }
        }
        b'[' => {
            *i = skip_ws(b, start + 1);
            if b.get(*i) == Some(&b']') {
                *i += 1;
            } else {
                loop {
                    node.elements.push(value(text, i)?);
                    *i = skip_ws(b, *i);
                    match b.get(*i)? {
                        b',' => *i = skip_ws(b, *i + 1),
                        b']' => {
                            *i += 1;
                            break;
                        }
                        _ => return None,
                    }
                }
            }
        }
        b'"' => *i = string_end(b, start)?,
        _ => {
            while b.get(*i).is_some_and(|c| !b" \t\n\r,:]}".contains(c)) {
                *i += 1;
            }
            if *i == start {
                return None;
            }
        }
    }
    node.end = *i;
    Some(node)
}

/// The indentation of the line `at` is on (its leading spaces and tabs).
fn indent_of_line(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

type Edit = (usize, usize, String);

/// The edits that turn `node` (the text of `old`) into a text of `new`.
fn diff(
    text: &str,
    node: &Node,
    old: &Value,
    new: &Value,
    layout: &Layout,
    edits: &mut Vec<Edit>,
) -> Option<()> {
    if old == new && same_order(old, new) {
        return Some(());
    }
    match (old, new) {
        (Value::Object(o), Value::Object(n)) if node.members.len() == o.len() => {
            let kept: Vec<&String> = o.keys().filter(|k| n.contains_key(*k)).collect();
            let common: Vec<&String> = n.keys().filter(|k| o.contains_key(*k)).collect();
            let added: Vec<(&String, &Value)> =
                n.iter().filter(|(k, _)| !o.contains_key(*k)).collect();
            // Kept keys in their order, new keys after them: anything else is rewritten whole.
            let tail_only = n.keys().skip(common.len()).all(|k| !o.contains_key(k));
            let removed: Vec<usize> = (0..node.members.len())
                .filter(|&m| !n.contains_key(&node.members[m].0))
                .collect();
            // Every member taken out and others put in: nothing of the object's text is left
            // to keep, so it is written anew in its place.
            let emptied =
                !removed.is_empty() && removed.len() == node.members.len() && !added.is_empty();
            if kept != common || !tail_only || emptied {
                return replace(text, node, new, layout, edits);
            }
            for (key, _, child) in &node.members {
                if let (Some(a), Some(b)) = (o.get(key), n.get(key)) {
                    diff(text, child, a, b, layout, edits)?;
                }
            }
            if !removed.is_empty() {
                cut(node, &removed, edits)?;
            }
            if !added.is_empty() {
                let items: Vec<(Option<&String>, &Value)> =
                    added.iter().map(|(k, v)| (Some(*k), *v)).collect();
                append(text, node, &items, node.members.len(), edits, layout)?;
            }
            Some(())
        }
        (Value::Array(o), Value::Array(n))
            if node.elements.len() == o.len() && n.len() > o.len() && n[..o.len()] == o[..] =>
        {
            let items: Vec<(Option<&String>, &Value)> =
                n[o.len()..].iter().map(|v| (None, v)).collect();
            append(text, node, &items, o.len(), edits, layout)
        }
        (Value::Array(o), Value::Array(n))
            if node.elements.len() == o.len() && n.len() < o.len() =>
        {
            // Elements only taken out (an uninstall's hook entries): cut where they are.
            match removed_elements(o, n) {
                Some(removed) => cut(node, &removed, edits),
                None => replace(text, node, new, layout, edits),
            }
        }
        _ => replace(text, node, new, layout, edits),
    }
}

/// Replaces the whole text of `node` with `new`, indented as the line it starts on, on one
/// line when the value it replaces was (or the file is).
fn replace(
    text: &str,
    node: &Node,
    new: &Value,
    layout: &Layout,
    edits: &mut Vec<Edit>,
) -> Option<()> {
    let indent = indent_of_line(text, node.start);
    let pretty = text[node.start..node.end].contains('\n');
    edits.push((node.start, node.end, layout.render(new, indent, pretty)));
    Some(())
}

fn is_one_line(text: &str) -> bool {
    !text.trim_end().contains('\n')
}

/// Which elements of `old` are gone from `new` when `new` is `old` with some elements taken out
/// and nothing else changed (each kept element matched to the first equal one left); `None`
/// otherwise.
fn removed_elements(old: &[Value], new: &[Value]) -> Option<Vec<usize>> {
    let mut removed = Vec::with_capacity(old.len() - new.len());
    let mut next = new.iter().peekable();
    for (i, v) in old.iter().enumerate() {
        if next.peek().is_some_and(|n| *n == v) {
            next.next();
        } else {
            removed.push(i);
        }
    }
    next.peek().is_none().then_some(removed)
}

/// Cuts the items at `which` (sorted) out of the container `node`, each run of neighbours at
/// once with the comma and spacing that went with it: a run takes the comma before it, a run at
/// the start the comma after it.
fn cut(node: &Node, which: &[usize], edits: &mut Vec<Edit>) -> Option<()> {
    let spans = node.item_spans();
    if which.len() == spans.len() {
        // All of them: an empty container.
        edits.push((node.start + 1, node.end - 1, String::new()));
        return Some(());
    }
    let mut i = 0;
    while i < which.len() {
        let first = which[i];
        let mut last = first;
        while which.get(i + 1) == Some(&(last + 1)) {
            i += 1;
            last += 1;
        }
        i += 1;
        match first.checked_sub(1) {
            // `first - 1` is kept: `which` is sorted and this run starts at `first`.
            Some(k) => edits.push((spans[k].1, spans[last].1, String::new())),
            None => edits.push((spans[first].0, spans.get(last + 1)?.0, String::new())),
        }
    }
    Some(())
}

/// Appends items to a container after the `left` items that stay: object members (`Some` key)
/// or array elements (`None`).
fn append(
    text: &str,
    node: &Node,
    items: &[(Option<&String>, &Value)],
    left: usize,
    edits: &mut Vec<Edit>,
    layout: &Layout,
) -> Option<()> {
    // The items at an indentation, pretty or on one line, with this between key and value.
    let rendered = |indent: &str, pretty: bool, key_sep: &str| -> Vec<String> {
        items
            .iter()
            .map(|(k, v)| {
                let value = layout.render(v, indent, pretty);
                match k {
                    // `Value`'s Display writes the key as a JSON string, escaped.
                    Some(k) => format!("{}{key_sep}{value}", Value::from(k.as_str())),
                    None => value,
                }
            })
            .collect()
    };
    let spans = node.item_spans();
    let nl = layout.newline;
    let Some(&(first, _)) = spans.first().filter(|_| left > 0) else {
        // An empty container: the items one a line, indented one unit more than the
        // container's line, unless the file is on one line.
        let outer = indent_of_line(text, node.start);
        let inside = if is_one_line(text) {
            rendered("", false, ":").join(",")
        } else {
            let inner = format!("{outer}{}", layout.unit);
            let items = rendered(&inner, true, ": ").join(&format!(",{nl}{inner}"));
            format!("{nl}{inner}{items}{nl}{outer}")
        };
        edits.push((node.start + 1, node.end - 1, inside));
        return Some(());
    };
    let last = spans.get(left - 1)?.1;
    let indent = indent_of_line(text, first);
    let own_line = text[node.start..first].contains('\n')
        && text[..first].ends_with(indent)
        && text[..first - indent.len()].ends_with('\n');
    let joined: String = if own_line {
        // One item a line, at the indentation of the items there.
        rendered(indent, true, ": ")
            .iter()
            .map(|i| format!(",{nl}{indent}{i}"))
            .collect()
    } else {
        // Items inline: after ", " (or "," when the file joins its items without a space), keys
        // spaced as the file spaces them.
        let spaced = spans.get(1).map_or(text.contains("\": "), |&(second, _)| {
            text[..second].trim_end_matches(' ').len() < second
        });
        let sep = if spaced { ", " } else { "," };
        let key_sep = if text.contains("\": ") { ": " } else { ":" };
        rendered("", false, key_sep)
            .iter()
            .map(|i| format!("{sep}{i}"))
            .collect()
    };
    edits.push((last, last, joined));
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn change(text: &str, f: impl FnOnce(&mut Value)) -> Option<String> {
        let old: Value = serde_json::from_str(text).unwrap();
        let mut new = old.clone();
        f(&mut new);
        splice(text, &old, &new)
    }

    #[test]
    fn a_member_added_keeps_every_other_byte() {
        let text = "{\n    \"ui\": {\"theme\": \"x\"},\n    \"list\": [1, 2,3]\n}\n";
        let out = change(text, |v| {
            v["mcpServers"] =
                json!({"qwen-memory": {"command": "git-qwen-memory", "args": ["mcp"]}});
        })
        .unwrap();
        assert_eq!(
            out,
            "{\n    \"ui\": {\"theme\": \"x\"},\n    \"list\": [1, 2,3],\n    \"mcpServers\": {\n        \"qwen-memory\": {\n            \"command\": \"git-qwen-memory\",\n            \"args\": [\n                \"mcp\"\n            ]\n        }\n    }\n}\n"
        );
    }

    #[test]
    fn into_an_existing_object_and_out_again_byte_for_byte() {
        let text = "{\r\n  \"mcpServers\": {\r\n    \"other\": {\"command\": \"x\", \"args\": [\"a\", \"b\"]}\r\n  },\r\n  \"n\": 1.50\r\n}";
        let old: Value = serde_json::from_str(text).unwrap();
        let mut new = old.clone();
        new["mcpServers"]["qwen-memory"] = json!({"command": "c"});
        let added = splice(text, &old, &new).unwrap();
        assert_eq!(
            added,
            "{\r\n  \"mcpServers\": {\r\n    \"other\": {\"command\": \"x\", \"args\": [\"a\", \"b\"]},\r\n    \"qwen-memory\": {\r\n      \"command\": \"c\"\r\n    }\r\n  },\r\n  \"n\": 1.50\r\n}"
        );
        let back = splice(&added, &new, &old).unwrap();
        assert_eq!(back, text);
    }

    #[test]
    fn an_empty_object_a_one_line_file_and_an_array_append() {
        assert_eq!(
            change("{\n  \"mcpServers\": {}\n}\n", |v| v["mcpServers"]["s"] =
                json!(1))
            .unwrap(),
            "{\n  \"mcpServers\": {\n    \"s\": 1\n  }\n}\n"
        );
        assert_eq!(
            change("{\"a\": 1}", |v| v["b"] = json!({"c": [true]})).unwrap(),
            "{\"a\": 1, \"b\": {\"c\":[true]}}"
        );
        assert_eq!(
            change("{\n  \"hooks\": [\"x\", \"y\"]\n}\n", |v| v["hooks"]
                .as_array_mut()
                .unwrap()
                .push(json!("z")))
            .unwrap(),
            "{\n  \"hooks\": [\"x\", \"y\", \"z\"]\n}\n"
        );
    }

    #[test]
    fn removing_the_only_and_the_first_member() {
        assert_eq!(
            change("{\n  \"a\": {\"s\": 1}\n}\n", |v| {
                v["a"].as_object_mut().unwrap().shift_remove("s");
            })
            .unwrap(),
            "{\n  \"a\": {}\n}\n"
        );
        assert_eq!(
            change("{\"a\": 1, \"b\": 2}", |v| {
                v.as_object_mut().unwrap().shift_remove("a");
            })
            .unwrap(),
            "{\"b\": 2}"
        );
    }

    #[test]
    fn neighbours_removed_together_and_a_member_swapped_for_another() {
        // Two neighbours out, in the middle and at the start: one cut each, nothing else moves.
        let text = "{\n  \"a\": 1,\n  \"b\": [2],\n  \"c\": 3,\n  \"d\":4\n}\n";
        assert_eq!(
            change(text, |v| {
                let o = v.as_object_mut().unwrap();
                o.shift_remove("b");
                o.shift_remove("c");
            })
            .unwrap(),
            "{\n  \"a\": 1,\n  \"d\":4\n}\n"
        );
        assert_eq!(
            change(text, |v| {
                let o = v.as_object_mut().unwrap();
                o.shift_remove("a");
                o.shift_remove("b");
            })
            .unwrap(),
            "{\n  \"c\": 3,\n  \"d\":4\n}\n"
        );
        // One member out, another in: the rest of the text is the person's.
        assert_eq!(
            change(text, |v| {
                let o = v.as_object_mut().unwrap();
                o.shift_remove("b");
                o.insert("e".into(), json!(5));
            })
            .unwrap(),
            "{\n  \"a\": 1,\n  \"c\": 3,\n  \"d\":4,\n  \"e\": 5\n}\n"
        );
        // The last member out and another in.
        assert_eq!(
            change("{\"a\":1, \"b\":2}", |v| {
                let o = v.as_object_mut().unwrap();
                o.shift_remove("b");
                o.insert("c".into(), json!(3));
            })
            .unwrap(),
            "{\"a\":1, \"c\":3}"
        );
        // Every member out and another in: the object is written anew, the file around it kept.
        assert_eq!(
            change("{\n  \"x\": {\"a\": 1},\n  \"y\":  true\n}", |v| v["x"] =
                json!({"b": 2}))
            .unwrap(),
            "{\n  \"x\": {\"b\":2},\n  \"y\":  true\n}"
        );
    }

    #[test]
    fn array_elements_taken_out_where_they_are() {
        // An uninstall taking its hook entry out of a person's list, inline and one per line.
        let hook = json!({"type": "command", "command": "git-qwen-memory hook"});
        let text = "{\"hooks\": [ {\"type\":\"command\",\"command\":\"mine\"}, {\"type\": \"command\", \"command\": \"git-qwen-memory hook\"},  \"z\" ]}";
        assert_eq!(
            change(text, |v| v["hooks"]
                .as_array_mut()
                .unwrap()
                .retain(|e| *e != hook))
            .unwrap(),
            "{\"hooks\": [ {\"type\":\"command\",\"command\":\"mine\"},  \"z\" ]}"
        );
        let text = "[\n    1,\n    2,\n    3,\n    [4,5]\n]\n";
        assert_eq!(
            change(text, |v| {
                v.as_array_mut().unwrap().remove(0);
            })
            .unwrap(),
            "[\n    2,\n    3,\n    [4,5]\n]\n"
        );
        assert_eq!(
            change(text, |v| {
                let a = v.as_array_mut().unwrap();
                a.remove(1);
                a.remove(1);
            })
            .unwrap(),
            "[\n    1,\n    [4,5]\n]\n"
        );
        assert_eq!(
            change(text, |v| v.as_array_mut().unwrap().truncate(0)).unwrap(),
            "[]\n"
        );
        // Equal elements: the first equal one is kept, the text still parses to what was asked.
        assert_eq!(
            change("[1, 1, 2]", |v| {
                v.as_array_mut().unwrap().remove(0);
            })
            .unwrap(),
            "[1, 2]"
        );
    }

    proptest::proptest! {
        /// A member added anywhere in a pretty or one-line file and taken out again gives the
        /// file back byte for byte, and every splice parses to the value asked for.
        #[test]
        fn add_then_remove_gives_the_file_back(
            keys in proptest::collection::vec("[a-z]{1,6}", 1..6),
            nested in proptest::bool::ANY,
            pretty in proptest::bool::ANY,
            indent in 1usize..5,
        ) {
            let mut old = serde_json::Map::new();
            for (i, k) in keys.iter().enumerate() {
                let v = if nested && i % 2 == 0 { json!({"x": [i, "y"]}) } else { json!(i) };
                old.insert(k.clone(), v);
            }
            let old = Value::Object(old);
            let text = if pretty {
                let mut t = serde_json::to_string_pretty(&old).unwrap();
                t = t.replace("  ", &" ".repeat(indent));
                t.push('\n');
                t
            } else {
                serde_json::to_string(&old).unwrap()
            };
            let mut new = old.clone();
            let target = if nested && keys.len() > 1 { keys[0].clone() } else { String::new() };
            let obj = if target.is_empty() || !new[&target].is_object() {
                new.as_object_mut().unwrap()
            } else {
                new[&target].as_object_mut().unwrap()
            };
            obj.insert("qwen-memory".into(), json!({"command": "c", "args": ["mcp"]}));
            let added = splice(&text, &old, &new).expect("a splice");
            proptest::prop_assert_eq!(serde_json::from_str::<Value>(&added).unwrap(), new.clone());
            let back = splice(&added, &new, &old).expect("a splice back");
            proptest::prop_assert_eq!(back, text);
        }
    }

    proptest::proptest! {
        /// Any set of members or elements taken out of a file laid out as no serializer would
        /// (odd spacing around colons and commas, items inline or one a line) is cut where it
        /// is: the result is the file with whole spans deleted — every kept item's text is
        /// there as it was, in order, and nothing was re-rendered — and it parses to the value
        /// asked for.
        #[test]
        fn removals_are_cut_in_place(
            n in 1usize..7,
            mask in proptest::collection::vec(proptest::bool::ANY, 7),
            array in proptest::bool::ANY,
            pretty in proptest::bool::ANY,
            pad in 0usize..3,
        ) {
            let old = if array {
                Value::Array((0..n).map(|i| json!({"i": i, "x": [i]})).collect())
            } else {
                Value::Object((0..n).map(|i| (format!("k{i}"), json!([i, "v"]))).collect())
            };
            // A person's layout: "a" :  1 ,  spaced unlike serde, inner values inline.
            let item = |v: &Value| serde_json::to_string(v).unwrap().replace(':', " :  ").replace(',', " , ");
            let sep = if pretty { format!(",{}\n   ", " ".repeat(pad)) } else { format!("{}, ", " ".repeat(pad)) };
            let items: Vec<String> = match &old {
                Value::Array(a) => a.iter().map(item).collect(),
                Value::Object(o) => o.iter().map(|(k, v)| format!("\"{k}\" :  {}", item(v))).collect(),
                _ => unreachable!(),
            };
            let (open, close) = if array { ("[", "]") } else { ("{", "}") };
            let text = if pretty {
                format!("{open}\n   {}\n{close}\n", items.join(&sep))
            } else {
                format!("{open} {} {close}", items.join(&sep))
            };
            let new = match &old {
                Value::Array(a) => Value::Array(
                    a.iter().enumerate().filter(|(i, _)| !mask[*i]).map(|(_, v)| v.clone()).collect(),
                ),
                Value::Object(o) => Value::Object(
                    o.iter().enumerate().filter(|(i, _)| !mask[*i]).map(|(_, (k, v))| (k.clone(), v.clone())).collect(),
                ),
                _ => unreachable!(),
            };
            let out = splice(&text, &old, &new).expect("a splice");
            proptest::prop_assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), new);
            // Every kept item's text, in order, as the person wrote it.
            let mut at = 0;
            for (i, it) in items.iter().enumerate() {
                if mask[i] {
                    continue;
                }
                let found = out[at..].find(it.as_str());
                proptest::prop_assert!(found.is_some(), "{:?} lost from {:?}", it, out);
                at += found.unwrap_or(0) + it.len();
            }
            // Only deletions: the output is the input with some bytes left out.
            let mut rest = text.chars();
            for c in out.chars() {
                proptest::prop_assert!(rest.any(|t| t == c), "{:?} is not {:?} with spans cut", out, text);
            }
            if !mask[..n].iter().any(|m| *m) {
                proptest::prop_assert_eq!(out, text);
            }
        }
    }

    #[test]
    fn a_changed_value_is_rewritten_in_place_and_the_result_is_checked() {
        assert_eq!(
            change("{\n  \"a\": [1,2],\n  \"b\": \"x\"\n}", |v| v["b"] =
                json!("y"))
            .unwrap(),
            "{\n  \"a\": [1,2],\n  \"b\": \"y\"\n}"
        );
        // Not JSON this reader follows: no splice (the caller rewrites the file).
        let old = json!({"a": 1});
        assert_eq!(splice("{\"a\": 1,}", &old, &json!({"a": 2})), None);
    }
}
