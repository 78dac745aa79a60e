//! The one HTTP client of the program (docs/development.md, "Who owns which I/O"): the model
//! client (`integrations::model`) and the embeddings client (`integrations::embeddings`) post
//! JSON through [`post_json`], built on one agent construction and one timeout/retry policy.
//!
//! **Policy.** Every attempt has one deadline for connect + send + read (the caller's timeout);
//! redirects are never followed (an API endpoint has no business redirecting, and following one
//! could carry the bearer token elsewhere); a 429 or 5xx answer is worth one retry, after the
//! server's `Retry-After` seconds when given (at most [`MAX_RETRY_AFTER`]) or [`RETRY_BACKOFF`];
//! the caller decides whether to take it ([`HttpError::retry_after`]). Errors hold fixed wording,
//! status numbers and transport classifications only: never the URL (it may embed credentials),
//! the key, the request or the answer's body.

use std::io;
use std::time::Duration;

/// Pause before the single retry of a 429 / 5xx answer when the server gives no `Retry-After`.
pub const RETRY_BACKOFF: Duration = Duration::from_millis(250);

/// Longest `Retry-After` we are willing to wait; longer requests are cut to this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(2);

/// Why one HTTP attempt failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// The attempt did not finish within its timeout.
    #[error("request timed out")]
    Timeout,
    /// The server answered with a non-success status; `retry` is the pause before the one retry
    /// when the status is worth one (429, 5xx).
    #[error("server answered HTTP {status}")]
    Status {
        status: u16,
        retry: Option<Duration>,
    },
    /// Connecting, sending or receiving failed: the transport's classification (`kind`) and,
    /// when there is one, the operating system's message (`io`).
    #[error("{kind}")]
    Transport { kind: String, io: Option<String> },
}

impl HttpError {
    /// The pause before the one retry this failure is worth, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            HttpError::Status { retry, .. } => *retry,
            _ => None,
        }
    }
}

/// A client whose every attempt finishes within one timeout, following no redirect.
pub struct Client {
    agent: ureq::Agent,
}

impl Client {
    /// A client whose attempts each finish within `timeout`. No traffic until a call.
    pub fn new(timeout: Duration) -> Client {
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(timeout)
            .timeout(timeout)
            .redirects(0)
            .build();
        Client { agent }
    }

    /// Posts the JSON `body` to `url` (with `Authorization: Bearer <api_key>` when given) in
    /// one attempt; the answer's body on a 2xx status.
    pub fn post_json(
        &self,
        url: &str,
        api_key: Option<&str>,
        body: &str,
    ) -> Result<String, HttpError> {
        post_json(&self.agent, url, api_key, body)
    }
}

fn post_json(
    agent: &ureq::Agent,
    url: &str,
    api_key: Option<&str>,
    body: &str,
) -> Result<String, HttpError> {
    let mut request = agent
        .post(url)
        .set("Content-Type", "application/json")
        .set("Accept", "application/json");
    if let Some(key) = api_key {
        request = request.set("Authorization", &format!("Bearer {key}"));
    }
    match request.send_string(body) {
        Ok(response) => {
            let status = response.status();
            if !(200..300).contains(&status) {
                return Err(HttpError::Status {
                    status,
                    retry: None,
                });
            }
            response.into_string().map_err(|e| {
                if is_timeout_kind(e.kind()) {
                    HttpError::Timeout
                } else {
                    HttpError::Transport {
                        kind: "reading the answer failed".into(),
                        io: Some(e.to_string()),
                    }
                }
            })
        }
        Err(ureq::Error::Status(status, response)) => Err(HttpError::Status {
            status,
            retry: (status == 429 || (500..600).contains(&status))
                .then(|| retry_pause(response.header("retry-after"))),
        }),
        Err(ureq::Error::Transport(transport)) => Err(transport_error(&transport)),
    }
}

fn transport_error(transport: &ureq::Transport) -> HttpError {
    use std::error::Error as _;
    // Walk the source chain: ureq nests the io::Error that tells a timeout apart.
    let mut source = transport.source();
    let mut io_detail = None;
    while let Some(err) = source {
        if let Some(io_err) = err.downcast_ref::<io::Error>() {
            if is_timeout_kind(io_err.kind()) {
                return HttpError::Timeout;
            }
            io_detail.get_or_insert_with(|| io_err.to_string());
        }
        source = err.source();
    }
    // The transport's own Display names the URL, which may embed credentials, so only the
    // classification and the OS-level cause are kept.
    HttpError::Transport {
        kind: transport.kind().to_string(),
        io: io_detail,
    }
}

fn is_timeout_kind(kind: io::ErrorKind) -> bool {
    matches!(kind, io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock)
}

/// The pause before the retry: the server's `Retry-After` seconds when given, at most
/// [`MAX_RETRY_AFTER`]; [`RETRY_BACKOFF`] otherwise (including HTTP-date forms).
pub fn retry_pause(retry_after: Option<&str>) -> Duration {
    retry_after
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|secs| secs.is_finite() && *secs >= 0.0)
        .map(|secs| Duration::from_secs_f64(secs.min(MAX_RETRY_AFTER.as_secs_f64())))
        .unwrap_or(RETRY_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_pause_is_bounded() {
        assert_eq!(retry_pause(None), RETRY_BACKOFF);
        assert_eq!(retry_pause(Some("1")), Duration::from_secs(1));
        assert_eq!(retry_pause(Some("0")), Duration::ZERO);
        assert_eq!(retry_pause(Some("3600")), MAX_RETRY_AFTER);
        assert_eq!(
            retry_pause(Some("Wed, 21 Oct 2015 07:28:00 GMT")),
            RETRY_BACKOFF
        );
        assert_eq!(retry_pause(Some("-5")), RETRY_BACKOFF);
    }
}
