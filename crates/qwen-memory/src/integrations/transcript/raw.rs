//! Lenient serde shapes for one transcript line, covering all three formats at once.
//!
//! Every field is optional and every value of an unexpected JSON type degrades to "absent"
//! instead of failing the line: transcripts are written by other programs whose schemas drift.
//! Large values we do not need (tool output, file contents in tool arguments, compressed
//! history) are never declared, so serde skips them without allocating.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

macro_rules! ignore_bool {
    ($ret:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($ret)
        }
    };
}

macro_rules! ignore_numbers_and_null {
    ($ret:expr) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($ret)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($ret)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($ret)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($ret)
        }
    };
}

macro_rules! ignore_str {
    ($ret:expr) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($ret)
        }
    };
}

macro_rules! ignore_seq {
    ($ret:expr) => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok($ret)
        }
    };
}

macro_rules! ignore_map {
    ($ret:expr) => {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok($ret)
        }
    };
}

/// A string field; any other JSON type reads as absent.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct LStr(pub Option<String>);

impl LStr {
    pub fn as_deref(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl<'de> Deserialize<'de> for LStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LStr;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LStr, E> {
                Ok(LStr(Some(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<LStr, E> {
                Ok(LStr(Some(v)))
            }
            ignore_bool!(LStr(None));
            ignore_numbers_and_null!(LStr(None));
            ignore_seq!(LStr(None));
            ignore_map!(LStr(None));
        }
        d.deserialize_any(V)
    }
}

/// A boolean field; only JSON `true` reads as true.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct LBool(pub bool);

impl<'de> Deserialize<'de> for LBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LBool;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<LBool, E> {
                Ok(LBool(v))
            }
            ignore_numbers_and_null!(LBool(false));
            ignore_str!(LBool(false));
            ignore_seq!(LBool(false));
            ignore_map!(LBool(false));
        }
        d.deserialize_any(V)
    }
}

/// Whether a key is present with a non-null value (its content is skipped).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct Present(pub bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Present;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Present, E> {
                Ok(Present(false))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Present, E> {
                Ok(Present(true))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Present, E> {
                Ok(Present(true))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Present, E> {
                Ok(Present(true))
            }
            ignore_bool!(Present(true));
            ignore_str!(Present(true));
            ignore_seq!(Present(true));
            ignore_map!(Present(true));
        }
        d.deserialize_any(V)
    }
}

/// A nested object; any non-object value reads as absent.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Obj<T>(pub Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<T> Obj<T> {
    pub fn as_ref(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|t| Obj(Some(t)))
            }
            ignore_bool!(Obj(None));
            ignore_numbers_and_null!(Obj(None));
            ignore_str!(Obj(None));
            ignore_seq!(Obj(None));
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// `content` / `parts`: a plain string, or an array of blocks (strings inside the array count
/// as text blocks, other non-objects are dropped).
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) enum Content {
    #[default]
    Absent,
    Text(String),
    Items(Vec<Item>),
}

impl Content {
    pub fn is_absent(&self) -> bool {
        matches!(self, Content::Absent)
    }

    pub fn items(&self) -> &[Item] {
        match self {
            Content::Items(items) => items,
            _ => &[],
        }
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Elem(Option<Item>);
        impl<'de> Deserialize<'de> for Elem {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Elem;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a content block")
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<Elem, E> {
                        Ok(Elem(Some(Item::text(v.to_owned()))))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Elem, A::Error> {
                        Item::deserialize(MapAccessDeserializer::new(map)).map(|i| Elem(Some(i)))
                    }
                    ignore_bool!(Elem(None));
                    ignore_numbers_and_null!(Elem(None));
                    ignore_seq!(Elem(None));
                }
                d.deserialize_any(V)
            }
        }

        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of blocks")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Content, E> {
                Ok(Content::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Content, E> {
                Ok(Content::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
                let mut items = Vec::new();
                while let Some(Elem(item)) = seq.next_element::<Elem>()? {
                    items.extend(item);
                }
                Ok(Content::Items(items))
            }
            ignore_bool!(Content::Absent);
            ignore_numbers_and_null!(Content::Absent);
            ignore_map!(Content::Absent);
        }
        d.deserialize_any(V)
    }
}

/// A `functionResponse.response` value, reduced to what decides success.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) enum Response {
    #[default]
    Absent,
    /// An object without an `error` key.
    Ok,
    /// An object with an `error` key.
    Error,
    /// Present but not an object.
    NotObject,
}

impl<'de> Deserialize<'de> for Response {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Response;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a tool response")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Response, A::Error> {
                let mut has_error = false;
                while let Some(key) = map.next_key::<LStr>()? {
                    map.next_value::<IgnoredAny>()?;
                    has_error |= key.as_deref() == Some("error");
                }
                Ok(if has_error {
                    Response::Error
                } else {
                    Response::Ok
                })
            }
            ignore_bool!(Response::NotObject);
            ignore_numbers_and_null!(Response::NotObject);
            ignore_str!(Response::NotObject);
            ignore_seq!(Response::NotObject);
        }
        d.deserialize_any(V)
    }
}

/// One transcript line (Qwen chat record, Claude transcript line or generic message).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawLine {
    #[serde(rename = "type")]
    pub kind: LStr,
    pub subtype: LStr,
    /// Generic JSONL role.
    pub role: LStr,
    /// Generic JSONL content (Claude `system` lines also carry a string here).
    pub content: Content,
    pub message: Obj<RawMessage>,
    #[serde(rename = "sessionId")]
    pub session_id: LStr,
    #[serde(rename = "session_id")]
    pub session_id_snake: LStr,
    pub cwd: LStr,
    #[serde(rename = "isMeta")]
    pub is_meta: LBool,
    #[serde(rename = "isSidechain")]
    pub is_sidechain: LBool,
    #[serde(rename = "isCompactSummary")]
    pub is_compact_summary: LBool,
    #[serde(rename = "isVisibleInTranscriptOnly")]
    pub visible_in_transcript_only: LBool,
    pub provenance: LStr,
    #[serde(rename = "systemPayload")]
    pub system_payload: Obj<SystemPayload>,
    #[serde(rename = "toolCallResult")]
    pub tool_call_result: Obj<ToolCallResult>,
    /// Claude `system` lines carry a `level`; Qwen system records never do.
    pub level: Present,
}

impl RawLine {
    pub fn session_id(&self) -> Option<&str> {
        self.session_id
            .as_deref()
            .or(self.session_id_snake.as_deref())
            .filter(|s| !s.is_empty())
    }
}

/// `message`: Gemini-style `{role, parts}` (Qwen) or API-style `{id, role, content}` (Claude).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RawMessage {
    pub role: LStr,
    pub content: Content,
    pub parts: Content,
    pub id: LStr,
}

/// A content block (Claude) or part (Qwen); one struct serves both since their keys differ.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub(super) struct Item {
    #[serde(rename = "type")]
    pub kind: LStr,
    pub text: LStr,
    pub thought: LBool,
    pub id: LStr,
    pub name: LStr,
    pub input: Obj<Args>,
    pub tool_use_id: LStr,
    pub is_error: LBool,
    #[serde(rename = "functionCall")]
    pub function_call: Obj<FunctionCall>,
    #[serde(rename = "functionResponse")]
    pub function_response: Obj<FunctionResponse>,
}

impl Item {
    fn text(text: String) -> Item {
        Item {
            kind: LStr(Some("text".to_owned())),
            text: LStr(Some(text)),
            ..Item::default()
        }
    }
}

/// Tool arguments, reduced to the path-like keys and the bridge-tool wrapper.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub(super) struct Args {
    pub file_path: LStr,
    pub path: LStr,
    pub absolute_path: LStr,
    pub notebook_path: LStr,
    pub target_file: LStr,
    /// Bridge tool `tool_call`: the real tool name.
    pub name: LStr,
    /// Bridge tool `tool_call`: the real arguments (object or JSON text). Rare, so a `Value`.
    pub arguments: Option<serde_json::Value>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub(super) struct FunctionCall {
    pub id: LStr,
    pub name: LStr,
    pub args: Obj<Args>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub(super) struct FunctionResponse {
    pub id: LStr,
    pub name: LStr,
    pub response: Response,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct SystemPayload {
    #[serde(rename = "displayText")]
    pub display_text: LStr,
    #[serde(rename = "hookContext")]
    pub hook_context: LStr,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ToolCallResult {
    #[serde(rename = "callId")]
    pub call_id: LStr,
    pub status: LStr,
}
