//! The MCP transport of the remote provider: a SEP-2640 skills server
//! reached over Streamable HTTP. `skills/list` (every page) gives the
//! catalog; `resources/read` gives a file's bytes when it is needed;
//! `skills/get` gives the files of a skill whose resources are `"dynamic"`.

pub mod list;
pub mod rpc;
pub mod session;
pub mod sse;

use crate::fetch::Url;
use serde_json::{Value, json};
use session::{CallError, Session};

/// Largest answer to `skills/get`.
const MAX_GET_BYTES: u64 = 4 * 1024 * 1024;

/// The MCP client of one remote source.
pub struct Client {
    session: Session,
    max_list_bytes: u64,
}

impl Client {
    /// A client of the server at `endpoint`; each answer to `skills/list`
    /// may hold at most `max_list_bytes`.
    pub fn new(endpoint: Url, max_list_bytes: u64) -> Client {
        Client {
            session: Session::new(endpoint),
            max_list_bytes,
        }
    }

    /// The endpoint, as text.
    pub fn endpoint(&self) -> String {
        self.session.endpoint()
    }

    /// Bytes received since the last time this was asked.
    pub fn take_received(&mut self) -> u64 {
        std::mem::take(&mut self.session.received)
    }

    /// Every page of `skills/list`.
    pub fn list(&mut self) -> Result<list::Listing, CallError> {
        let limit = self.max_list_bytes;
        let session = &mut self.session;
        let mut failure = None;
        let listing = list::collect(|cursor| {
            let params = match cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let result = session.call("skills/list", params, limit).map_err(|e| {
                let text = e.to_string();
                failure = Some(e);
                text
            })?;
            list::page(&result)
        });
        match (listing, failure) {
            (Ok(listing), _) => Ok(listing),
            (Err(_), Some(e)) => Err(e),
            (Err(m), None) => Err(CallError::Transport(format!("{}: {m}", self.endpoint()))),
        }
    }

    /// The entry `skills/get` gives for `uri`.
    pub fn get(&mut self, uri: &str) -> Result<Value, CallError> {
        let result = self
            .session
            .call("skills/get", json!({"uri": uri}), MAX_GET_BYTES)?;
        match result.get("skill") {
            Some(skill) if skill.is_object() => Ok(skill.clone()),
            _ => Err(CallError::Transport(format!(
                "{}: skills/get {uri}: the result has no skill",
                self.endpoint()
            ))),
        }
    }

    /// The bytes `resources/read` gives for `uri`, at most `limit`.
    pub fn read(&mut self, uri: &str, limit: u64) -> Result<Vec<u8>, CallError> {
        // The answer carries the bytes as text or base64, inside JSON.
        let wire_limit = limit.saturating_mul(4) / 3 + 64 * 1024;
        let result = self
            .session
            .call("resources/read", json!({"uri": uri}), wire_limit)?;
        contents(&result, uri).map_err(|m| {
            CallError::Transport(format!("{}: resources/read {uri}: {m}", self.endpoint()))
        })
    }
}

/// The bytes of `uri` in a `resources/read` result.
pub fn contents(result: &Value, uri: &str) -> Result<Vec<u8>, String> {
    let list = result["contents"]
        .as_array()
        .ok_or("the result has no contents list")?;
    let item = list
        .iter()
        .find(|c| c["uri"].as_str() == Some(uri))
        .ok_or("the contents hold nothing for this URI")?;
    if let Some(text) = item["text"].as_str() {
        return Ok(text.as_bytes().to_vec());
    }
    let blob = item["blob"]
        .as_str()
        .ok_or("the contents have neither text nor blob")?;
    base64(blob).ok_or_else(|| "the blob is not base64".to_string())
}

/// Standard base64 (padding optional), or `None`.
pub fn base64(text: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let bytes = text.trim_end_matches('=').as_bytes();
    if bytes.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
