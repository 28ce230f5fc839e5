//! One MCP Streamable HTTP session: `initialize` with version negotiation,
//! the `Mcp-Session-Id` the server hands out, and requests answered as JSON
//! or SSE. A session the server has forgotten (404) is re-initialised once.

use super::rpc::{self, Failure};
use crate::fetch::{self, Url};
use serde_json::{Value, json};

/// The protocol versions this client speaks, newest first.
pub const VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/// The extension's identifier in `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";
/// Largest answer to `initialize`.
const MAX_INIT_BYTES: u64 = 1024 * 1024;

/// Why a call failed.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// The server answered with a JSON-RPC error.
    Rpc(String),
    /// No usable answer (network, HTTP status, framing, negotiation).
    Transport(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Rpc(m) | CallError::Transport(m) => f.write_str(m),
        }
    }
}

/// The protocol version the server chose, if this client speaks it, and
/// whether the server offers the Skills Extension.
pub fn negotiate(result: &Value) -> Result<String, String> {
    let version = result["protocolVersion"]
        .as_str()
        .ok_or("the initialize result has no protocolVersion")?;
    if !VERSIONS.contains(&version) {
        return Err(format!(
            "the server speaks MCP {version}; this client speaks {}",
            VERSIONS.join(", ")
        ));
    }
    if result["capabilities"]["extensions"]
        .get(EXTENSION)
        .is_none()
    {
        return Err(format!(
            "the server does not offer the Skills Extension: {EXTENSION} is not in its capabilities.extensions"
        ));
    }
    Ok(version.to_string())
}

/// A session with one endpoint.
pub struct Session {
    endpoint: Url,
    id: Option<String>,
    version: Option<String>,
    next_id: u64,
    /// Bytes received since the counter was last taken.
    pub received: u64,
}

impl Session {
    /// A session with `endpoint`, not yet initialised.
    pub fn new(endpoint: Url) -> Session {
        Session {
            endpoint,
            id: None,
            version: None,
            next_id: 1,
            received: 0,
        }
    }

    /// The endpoint, as text.
    pub fn endpoint(&self) -> String {
        self.endpoint.text()
    }

    /// Forgets the session, so the next call initialises again.
    pub fn reset(&mut self) {
        self.id = None;
        self.version = None;
    }

    fn post(&mut self, body: &[u8], limit: u64) -> Result<fetch::Response, String> {
        let mut headers = vec![
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ];
        if let Some(id) = &self.id {
            headers.push(("mcp-session-id", id));
        }
        if let Some(version) = &self.version {
            headers.push(("mcp-protocol-version", version));
        }
        let response = fetch::post(&self.endpoint, &headers, body, limit)?;
        self.received += response.body.len() as u64;
        Ok(response)
    }

    fn initialize(&mut self) -> Result<(), CallError> {
        self.reset();
        let id = self.take_id();
        let params = json!({
            "protocolVersion": VERSIONS[0],
            "capabilities": {"extensions": {EXTENSION: {}}},
            "clientInfo": {"name": "skillhost-remote", "version": env!("CARGO_PKG_VERSION")},
        });
        let response = self
            .post(&rpc::request(id, "initialize", params), MAX_INIT_BYTES)
            .map_err(CallError::Transport)?;
        let result = self.result_of(&response, id, "initialize")?;
        let version = negotiate(&result)
            .map_err(|m| CallError::Transport(format!("{}: {m}", self.endpoint())))?;
        self.id = response.header("mcp-session-id").map(str::to_string);
        self.version = Some(version);
        let sent = self
            .post(
                &rpc::notification("notifications/initialized"),
                MAX_INIT_BYTES,
            )
            .map_err(CallError::Transport)?;
        if !(200..300).contains(&sent.status) {
            return Err(CallError::Transport(format!(
                "{}: notifications/initialized: HTTP {}",
                self.endpoint(),
                sent.status
            )));
        }
        Ok(())
    }

    fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn result_of(
        &self,
        response: &fetch::Response,
        id: u64,
        method: &str,
    ) -> Result<Value, CallError> {
        let at = self.endpoint();
        if response.status != 200 {
            return Err(CallError::Transport(format!(
                "{at}: {method}: HTTP {}",
                response.status
            )));
        }
        let content_type = response
            .header("content-type")
            .unwrap_or("application/json");
        rpc::answer(&response.body, content_type, id).map_err(|f| match f {
            Failure::Rpc { .. } => CallError::Rpc(format!("{at}: {method}: {f}")),
            Failure::Protocol(m) => CallError::Transport(format!("{at}: {method}: {m}")),
        })
    }

    /// Calls `method`, initialising first if needed; a 404 for a session
    /// the server no longer knows starts a new one, once.
    pub fn call(&mut self, method: &str, params: Value, limit: u64) -> Result<Value, CallError> {
        if self.version.is_none() {
            self.initialize()?;
        }
        let mut renewed = false;
        loop {
            let id = self.take_id();
            let response = self
                .post(&rpc::request(id, method, params.clone()), limit)
                .map_err(CallError::Transport)?;
            if response.status == 404 && self.id.is_some() && !renewed {
                renewed = true;
                self.initialize()?;
                continue;
            }
            if response.status == 404 && self.id.is_some() {
                // Forget it, so the next poll starts afresh.
                self.reset();
            }
            return self.result_of(&response, id, method);
        }
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
