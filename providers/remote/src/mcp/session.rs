//! One MCP Streamable HTTP session: `initialize` with version negotiation,
//! the `Mcp-Session-Id` the server hands out, and requests answered as JSON
//! or SSE. A session the server has forgotten (404) is re-initialised once.
//! A server that offers the Skills Extension only on the stateless
//! 2026-07-28 revision (FastMCP does) is found with `server/discover`, and
//! every request then carries the `_meta` envelope and the `Mcp-Method` and
//! `Mcp-Name` headers that revision asks for.

use super::rpc::{self, Failure};
use crate::fetch::{self, Url};
use serde_json::{Value, json};

/// The protocol versions this client speaks, newest first.
pub const VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/// The stateless revision, negotiated with `server/discover`.
pub const STATELESS: &str = "2026-07-28";
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

/// Whether a `server/discover` result offers the stateless revision with
/// the Skills Extension.
pub fn discovered(result: &Value) -> Result<(), String> {
    let versions = result["supportedVersions"].as_array();
    if !versions.is_some_and(|v| v.iter().any(|v| v.as_str() == Some(STATELESS))) {
        return Err(format!("server/discover does not offer {STATELESS}"));
    }
    if result["capabilities"]["extensions"]
        .get(EXTENSION)
        .is_none()
    {
        return Err(format!(
            "the server does not offer the Skills Extension: {EXTENSION} is not in its capabilities.extensions"
        ));
    }
    Ok(())
}

/// The `_meta` envelope every request of the stateless revision carries.
pub fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "skillhost-remote", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// `params` with the stateless envelope added.
pub fn with_envelope(params: Value) -> Value {
    let mut params = match params {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    params.insert("_meta".to_string(), envelope());
    Value::Object(params)
}

/// A session with one endpoint.
pub struct Session {
    endpoint: Url,
    id: Option<String>,
    version: Option<String>,
    /// The stateless revision: no session, an envelope on every request.
    stateless: bool,
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
            stateless: false,
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
        self.stateless = false;
    }

    fn post(&mut self, body: &[u8], limit: u64) -> Result<fetch::Response, String> {
        self.post_with(body, limit, &[])
    }

    fn post_with(
        &mut self,
        body: &[u8],
        limit: u64,
        extra: &[(&str, &str)],
    ) -> Result<fetch::Response, String> {
        let mut headers = vec![
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ];
        headers.extend_from_slice(extra);
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
        let result = self.result_of(&response, id, "initialize");
        let version = match result.and_then(|r| {
            negotiate(&r).map_err(|m| CallError::Transport(format!("{}: {m}", self.endpoint())))
        }) {
            Ok(version) => version,
            // The extension may be offered on the stateless revision only.
            Err(e) => return self.discover().map_err(|_| e),
        };
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

    fn discover(&mut self) -> Result<(), CallError> {
        let id = self.take_id();
        let body = rpc::request(id, "server/discover", with_envelope(json!({})));
        let headers = [
            ("mcp-protocol-version", STATELESS),
            ("mcp-method", "server/discover"),
        ];
        let response = self
            .post_with(&body, MAX_INIT_BYTES, &headers)
            .map_err(CallError::Transport)?;
        let result = self.result_of(&response, id, "server/discover")?;
        discovered(&result)
            .map_err(|m| CallError::Transport(format!("{}: {m}", self.endpoint())))?;
        self.version = Some(STATELESS.to_string());
        self.stateless = true;
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
            let response = if self.stateless {
                let name = params["uri"].as_str().unwrap_or_default().to_string();
                let mut headers = vec![("mcp-method", method)];
                if !name.is_empty() {
                    headers.push(("mcp-name", &name));
                }
                let body = rpc::request(id, method, with_envelope(params.clone()));
                self.post_with(&body, limit, &headers)
            } else {
                self.post(&rpc::request(id, method, params.clone()), limit)
            }
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
