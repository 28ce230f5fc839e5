//! `skills/list` over HTTP, answered in front of rmcp from bytes serialized
//! once per view: on a 2025-11-25 session, and as a self-contained
//! 2026-07-28 request.
//!
//! Why: for every result rmcp checks each skill entry again
//! (`validate_skills`), and the handler clones and rmcp serializes the
//! whole page again, on every request — most of what a listing of 1,000
//! skills costs — although a view, and so each of its pages, never changes.
//! `StreamableHttpService` only takes a `ServerHandler`, so this cannot be
//! skipped inside rmcp.
//!
//! What keeps it equal to rmcp's answer: a page is made by the handler's
//! own `handler::skills_page`, checked by rmcp's `validate_skills`, shaped
//! per revision as rmcp shapes it (`strip_result_type_for_legacy_peer` for
//! 2025-11-25, `fill_missing_cache_hints` for 2026-07-28) and serialized as
//! rmcp's `ServerResult`, then put in the JSON-RPC envelope and SSE event
//! rmcp writes. Only a request whose handling by rmcp is plain takes this
//! path — a POST of one `skills/list` request with at most a cursor, a
//! progress token (the handler reports no progress on a listing) and, on
//! 2026-07-28, the `_meta` of protocol version, client capabilities and
//! client info, decoding as rmcp decodes them; both media types accepted,
//! a JSON body, an allowed `Host` and no `Origin`; on 2025-11-25 a session
//! rmcp holds and a known pre-2026 (or no) `MCP-Protocol-Version`; on
//! 2026-07-28 exactly one `Mcp-Method: skills/list`, no other `Mcp-*`
//! header and no session. Anything else (batches, other fields, other
//! `_meta` keys, a cursor rmcp would refuse, a page rmcp would refuse) goes
//! to rmcp unchanged. A 2025-11-25 session is still touched through rmcp's
//! own handle (a request-wise channel opened and closed, as each POST
//! does), so it stays alive, and a session whose worker is gone falls
//! through too.
//!
//! One difference is deliberate: on a 2025-11-25 session the event carries
//! no event id and no priming event precedes it, as no stream is kept to
//! resume; the whole answer is written at once. (A 2026-07-28 answer from
//! rmcp has neither either.)

//!
//! It mirrors rmcp's internals as of rmcp 3.11.0; a unit test below fails
//! when the workspace resolves another rmcp, so an upgrade re-checks this
//! file. `HttpOptions::fast_listing` turns it off.

use crate::handler::{SKILLS, skills_page, start_after};
use crate::live::{Live, Options};
use crate::view::View;
use bytes::Bytes;
use http::{HeaderMap, Method, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use rmcp::model::{ProtocolVersion, RequestMetaObject, ServerResult, validate_skills};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde::Deserialize;
use std::convert::Infallible;

const JSON: &str = "application/json";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const METHOD: &str = "mcp-method";
const EVENT_STREAM: &str = "text/event-stream";

/// The `Host` names requests may use: `None` when any is allowed.
#[derive(Debug, Clone)]
pub(crate) struct Hosts(pub(crate) Option<Vec<String>>);

impl Hosts {
    /// Whether `headers` name an allowed host, compared as rmcp compares
    /// them (lowercase, brackets off, a port only where the entry has one).
    fn allow(&self, headers: &HeaderMap) -> bool {
        let Some(allowed) = &self.0 else {
            return true;
        };
        let Some(given) = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| http::uri::Authority::try_from(v).ok())
        else {
            return false;
        };
        let host = normalize(given.host());
        allowed.iter().any(|entry| {
            let entry = entry.trim();
            if entry.is_empty() {
                return false;
            }
            match http::uri::Authority::try_from(entry) {
                Ok(a) => {
                    normalize(a.host()) == host
                        && a.port_u16().is_none_or(|p| given.port_u16() == Some(p))
                }
                Err(_) => normalize(entry) == host,
            }
        })
    }
}

fn normalize(host: &str) -> String {
    host.trim_matches('[')
        .trim_matches(']')
        .to_ascii_lowercase()
}

/// The one JSON-RPC request this path answers; any other field, or a
/// field twice, makes it someone else's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    jsonrpc: String,
    id: serde_json::Value,
    method: String,
    #[serde(default)]
    params: Params,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Params {
    cursor: Option<String>,
    #[serde(rename = "_meta")]
    meta: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The revision a request is answered on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Revision {
    /// 2025-11-25 (or older), on a session.
    Session,
    /// 2026-07-28, self-contained.
    Stateless,
}

/// The `_meta` keys a 2026-07-28 `skills/list` may carry here besides a
/// progress token; any other (a log level, …) is rmcp's to interpret.
const META_KEYS: [&str; 3] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
];
/// A progress token, which rmcp's client sends with every request: the
/// handler reports no progress on a listing, so it changes nothing.
const PROGRESS_TOKEN: &str = "progressToken";

/// Whether `meta` (absent: `None`) is one rmcp accepts on `revision` and
/// that changes nothing in its `skills/list` answer.
fn plain_meta(
    revision: Revision,
    meta: Option<&serde_json::Map<String, serde_json::Value>>,
) -> bool {
    let token_is_plain = meta
        .and_then(|m| m.get(PROGRESS_TOKEN))
        .is_none_or(|t| t.is_string() || t.is_i64());
    let Some(meta) = meta else {
        return revision == Revision::Session;
    };
    if !token_is_plain {
        return false;
    }
    let mut keys = meta.keys().filter(|k| *k != PROGRESS_TOKEN);
    if revision == Revision::Session {
        return keys.next().is_none();
    }
    if !keys.all(|k| META_KEYS.contains(&k.as_str())) {
        return false;
    }
    let Ok(decoded) =
        serde_json::from_value::<RequestMetaObject>(serde_json::Value::Object(meta.clone()))
    else {
        return false;
    };
    let modern = ProtocolVersion::V_2026_07_28;
    decoded.protocol_version().as_ref() == Some(&modern)
        && decoded.missing_required_keys(&modern).is_empty()
        && (!meta.contains_key(META_KEYS[2]) || decoded.client_info().is_some())
}

/// The revision rmcp would answer these headers on, when it answers them
/// without anything this path would not do the same.
fn plain_headers(headers: &HeaderMap, hosts: &Hosts) -> Option<Revision> {
    if headers.contains_key(header::ORIGIN) || !hosts.allow(headers) {
        return None;
    }
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let value = value.to_str().ok()?;
        for entry in value.split(',') {
            // Parameters and quality weights are rmcp's to weigh.
            if entry.contains([';', '"']) {
                return None;
            }
            let entry = entry.trim();
            json |= entry.eq_ignore_ascii_case(JSON);
            sse |= entry.eq_ignore_ascii_case(EVENT_STREAM);
        }
    }
    let json_body = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split_once(';')
                .map_or(v, |(essence, _)| essence)
                .trim()
                .eq_ignore_ascii_case(JSON)
        });
    if !(json && sse && json_body) {
        return None;
    }
    let modern = ProtocolVersion::V_2026_07_28;
    match headers.get(PROTOCOL_VERSION) {
        None => Some(Revision::Session),
        Some(v) => {
            let v = v.to_str().ok()?;
            if v == modern.as_str() {
                return plain_modern_headers(headers).then_some(Revision::Stateless);
            }
            let legacy = v < modern.as_str()
                && ProtocolVersion::KNOWN_VERSIONS
                    .iter()
                    .any(|k| k.as_str() == v);
            legacy.then_some(Revision::Session)
        }
    }
}

/// The SEP-2243 headers of a 2026-07-28 `skills/list`: one `Mcp-Method`
/// naming it, and no other `Mcp-*` header (a session id included) for rmcp
/// to weigh.
fn plain_modern_headers(headers: &HeaderMap) -> bool {
    let mut methods = headers.get_all(METHOD).iter();
    let one_method = methods.next().is_some_and(|m| m == "skills/list") && methods.next().is_none();
    let others = headers.keys().any(|name| {
        let name = name.as_str();
        name.starts_with("mcp-") && name != METHOD && name != PROTOCOL_VERSION
    });
    one_method && !others
}

/// The page of the current view starting at `start`, as rmcp would
/// serialize its result on `revision`; `None` when rmcp would refuse it.
fn page_bytes(view: &View, options: &Options, start: usize, revision: Revision) -> Option<Bytes> {
    view.cached_page(start, revision == Revision::Stateless, || {
        let result = skills_page(view, options, start);
        let count = result.next_cursor.is_some().then_some(result.skills.len());
        if let Err(e) = validate_skills(&result.skills) {
            tracing::warn!(error = %e, "a skills/list page is left to rmcp, which refuses it");
            return None;
        }
        let mut result = ServerResult::ListSkillsResult(result);
        match revision {
            Revision::Session => result.strip_result_type_for_legacy_peer(),
            Revision::Stateless => result.fill_missing_cache_hints(),
        }
        serde_json::to_vec(&result)
            .ok()
            .map(|bytes| (Bytes::from(bytes), count))
    })
}

/// The answer to `body` when it is a plain `skills/list` on a live
/// 2025-11-25 session or a plain 2026-07-28 one; `None` leaves the request
/// to rmcp.
pub(crate) async fn answer(
    live: &Live,
    hosts: &Hosts,
    sessions: &LocalSessionManager,
    parts: &http::request::Parts,
    body: &[u8],
) -> Option<Response<BoxBody<Bytes, Infallible>>> {
    if parts.method != Method::POST {
        return None;
    }
    let revision = plain_headers(&parts.headers, hosts)?;
    let request: Request = serde_json::from_slice(body).ok()?;
    let id_is_plain = match &request.id {
        serde_json::Value::String(_) => true,
        serde_json::Value::Number(n) => n.is_i64(),
        _ => false,
    };
    let meta_is_plain = plain_meta(revision, request.params.meta.as_ref());
    if request.jsonrpc != "2.0" || request.method != "skills/list" || !id_is_plain || !meta_is_plain
    {
        return None;
    }
    let view = live.view();
    let start = match &request.params.cursor {
        None => 0,
        Some(c) => start_after(&view.entries, SKILLS, c, |e| e.uri.as_str())?,
    };
    let page = page_bytes(&view, live.options(), start, revision)?;
    if revision == Revision::Session {
        let session = parts.headers.get("mcp-session-id")?.to_str().ok()?;
        let handle = sessions.sessions.read().await.get(session).cloned()?;
        let channel = handle.establish_request_wise_channel().await.ok()?;
        if let Some(id) = channel.http_request_id {
            let _ = handle.close_request_wise_channel(id).await;
        }
    }
    let id = serde_json::to_vec(&request.id).ok()?;
    let mut event = Vec::with_capacity(page.len() + id.len() + 48);
    event.extend_from_slice(b"data: {\"jsonrpc\":\"2.0\",\"id\":");
    event.extend_from_slice(&id);
    event.extend_from_slice(b",\"result\":");
    event.extend_from_slice(&page);
    event.extend_from_slice(b"}\n\n");
    let mut response = Response::new(Full::new(Bytes::from(event)).boxed());
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(EVENT_STREAM),
    );
    headers.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-cache"),
    );
    headers.insert("x-accel-buffering", header::HeaderValue::from_static("no"));
    Some(response)
}

#[cfg(test)]
mod tests {
    /// The rmcp release whose answers this path reproduces byte for byte.
    const WRITTEN_FOR_RMCP: &str = "3.11.0";

    /// The versions of rmcp the workspace's lock file resolves.
    fn locked_rmcp() -> Vec<String> {
        let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock"))
            .expect("the workspace's Cargo.lock");
        lock.split("[[package]]")
            .filter(|p| p.lines().any(|l| l.trim() == "name = \"rmcp\""))
            .filter_map(|p| {
                p.lines()
                    .find_map(|l| l.trim().strip_prefix("version = "))
                    .map(|v| v.trim_matches('"').to_string())
            })
            .collect()
    }

    #[test]
    fn the_listing_fast_path_was_written_for_the_rmcp_the_workspace_resolves() {
        assert_eq!(
            locked_rmcp(),
            [WRITTEN_FOR_RMCP],
            "rmcp changed: re-check mcp/src/listing.rs against the new rmcp's envelope, \
             validation and framing (the tests in mcp/tests/http/listing.rs compare bytes), \
             then update WRITTEN_FOR_RMCP"
        );
    }
}
