//! JSON-RPC 2.0 envelopes as MCP sends them, and the answer to one request
//! picked out of a JSON or SSE body.

use super::sse;
use serde_json::{Value, json};

/// Why a request got no result.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The server answered with a JSON-RPC error.
    Rpc {
        /// The error code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// The answer was not a JSON-RPC answer to this request.
    Protocol(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Rpc { code, message } => write!(f, "error {code}: {message}"),
            Failure::Protocol(message) => f.write_str(message),
        }
    }
}

/// A request with `id`.
pub fn request(id: u64, method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

/// A notification (no id, no answer).
pub fn notification(method: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "method": method})
        .to_string()
        .into_bytes()
}

/// The result of request `id` in `body`, which is one JSON message, a batch,
/// or (`text/event-stream`) a stream of them; notifications and requests the
/// server sends on the way are skipped.
pub fn answer(body: &[u8], content_type: &str, id: u64) -> Result<Value, Failure> {
    let text = std::str::from_utf8(body)
        .map_err(|_| Failure::Protocol("the answer is not UTF-8".to_string()))?;
    let sse = content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/event-stream"));
    if sse {
        let mut broken = None;
        for data in sse::events(text) {
            match serde_json::from_str::<Value>(&data) {
                Ok(message) => {
                    if let Some(found) = pick(message, id) {
                        return found;
                    }
                }
                Err(e) => broken = Some(e.to_string()),
            }
        }
        return Err(Failure::Protocol(match broken {
            Some(e) => {
                format!("the event stream broke off before the answer (an event is not JSON: {e})")
            }
            None => "the event stream ended before the answer".to_string(),
        }));
    }
    let message: Value = serde_json::from_str(text)
        .map_err(|e| Failure::Protocol(format!("the answer is not JSON: {e}")))?;
    pick(message, id).unwrap_or_else(|| {
        Err(Failure::Protocol(format!(
            "the answer holds no response to request {id}"
        )))
    })
}

/// The outcome of request `id` if `message` (or the batch) answers it.
fn pick(message: Value, id: u64) -> Option<Result<Value, Failure>> {
    if let Value::Array(batch) = message {
        return batch.into_iter().find_map(|m| pick(m, id));
    }
    if message.get("id").and_then(Value::as_u64) != Some(id) || message.get("method").is_some() {
        return None;
    }
    if let Some(error) = message.get("error") {
        return Some(Err(Failure::Rpc {
            code: error["code"].as_i64().unwrap_or(0),
            message: error["message"]
                .as_str()
                .unwrap_or("no message")
                .to_string(),
        }));
    }
    Some(match message.get("result") {
        Some(result) if result.is_object() => Ok(result.clone()),
        _ => Err(Failure::Protocol(format!(
            "the response to request {id} has no result object"
        ))),
    })
}

#[cfg(test)]
#[path = "rpc_tests.rs"]
mod tests;
