//! MCP Streamable HTTP at `/mcp`, safe by default: loopback unless told
//! otherwise, and then only with a bearer token; `Host` and `Origin`
//! checked against DNS rebinding; request bodies, header waits and open
//! connections bounded. Each connection runs on its own task, so a client
//! that goes away mid-response costs no other session anything. A plain
//! `skills/list` is answered from the view's serialized pages before rmcp
//! sees it (`crate::listing` says why, and what keeps the answer equal to
//! rmcp's).

use crate::error::ServeError;
use crate::handler::{Handler, server_config};
use crate::listing::{self, Hosts};
use crate::live::Live;
use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// The path the server answers at.
pub const PATH: &str = "/mcp";
/// Shortest token accepted: anything shorter is guessable.
pub const MIN_TOKEN_CHARS: usize = 16;

/// How the HTTP server listens.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Where to listen.
    pub addr: SocketAddr,
    /// The bearer token every request must carry (required off loopback).
    pub token: Option<String>,
    /// Host names clients may use besides loopback and the bound address.
    pub allowed_hosts: Vec<String>,
    /// Largest request body accepted.
    pub max_body_bytes: usize,
    /// Most connections open at once; more are refused.
    pub max_connections: usize,
    /// Longest wait for a request's headers.
    pub header_timeout: Duration,
    /// Longest wait for a request's body, once its headers arrived.
    pub body_timeout: Duration,
    /// Most 2025-11-25 sessions alive at once; an `initialize` past it is
    /// answered 503 (each session holds a worker and its channels until it
    /// ends or has been idle for rmcp's keep-alive).
    pub max_sessions: usize,
}

impl HttpOptions {
    /// Listening on `addr` with the defaults: 1 MiB bodies, 1,024
    /// connections, 512 sessions, 10 s for headers and 30 s for a body, no
    /// token.
    pub fn new(addr: SocketAddr) -> HttpOptions {
        HttpOptions {
            addr,
            token: None,
            allowed_hosts: Vec::new(),
            max_body_bytes: 1 << 20,
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_sessions: 512,
        }
    }
}

/// Largest token file read, in bytes.
const MAX_TOKEN_FILE_BYTES: u64 = 64 * 1024;

/// Reads a bearer token from `path`: its first line, trimmed.
pub fn read_token(path: &Path) -> Result<String, ServeError> {
    let fail = |reason: String| ServeError::Token {
        path: path.to_path_buf(),
        reason,
    };
    // A regular file of a few KiB at most: a FIFO or `/dev/zero` named by
    // mistake is refused instead of blocking or filling memory.
    let bytes = skillhost::paths::read_regular(path, MAX_TOKEN_FILE_BYTES)
        .map_err(|e| fail(format!("cannot read it: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|_| fail("it is not UTF-8 text".to_string()))?;
    let token = text.lines().next().unwrap_or_default().trim().to_string();
    if token.chars().count() < MIN_TOKEN_CHARS {
        return Err(fail(format!(
            "the token must have at least {MIN_TOKEN_CHARS} characters"
        )));
    }
    if !token.chars().all(|c| c.is_ascii_graphic()) {
        return Err(fail(
            "the token may only hold visible ASCII characters".to_string(),
        ));
    }
    Ok(token)
}

/// Compares in time independent of where the inputs differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn authorized(token: Option<&str>, request: &Request<Incoming>) -> bool {
    let Some(token) = token else {
        return true;
    };
    request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|given| same(given.trim().as_bytes(), token.as_bytes()))
}

fn plain(status: StatusCode, text: &'static str) -> Response<BoxBody<Bytes, Infallible>> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// What one request may cost before rmcp sees it.
#[derive(Debug, Clone, Copy)]
struct BodyLimits {
    bytes: usize,
    timeout: Duration,
    sessions: usize,
}

/// Reads the body within its size and time limits, and refuses an
/// `initialize` that would open a session past the cap; a client sending
/// its body slowly, or opening sessions without end, costs only itself.
async fn bounded(
    request: Request<Incoming>,
    limits: BodyLimits,
    sessions: &LocalSessionManager,
) -> Result<(http::request::Parts, Bytes), Response<BoxBody<Bytes, Infallible>>> {
    let (parts, body) = request.into_parts();
    let too_large = || {
        plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            "The request body is larger than this server accepts\n",
        )
    };
    // A body declared too large is refused before a byte of it is read, so
    // the client hears why instead of finding its upload cut off.
    let declared = parts
        .headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limits.bytes as u64) {
        return Err(too_large());
    }
    let collected = tokio::time::timeout(
        limits.timeout,
        http_body_util::Limited::new(body, limits.bytes).collect(),
    )
    .await;
    let bytes = match collected {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => return Err(too_large()),
        Ok(Err(_)) => {
            return Err(plain(
                StatusCode::BAD_REQUEST,
                "The request body was cut off\n",
            ));
        }
        Err(_) => {
            return Err(plain(
                StatusCode::REQUEST_TIMEOUT,
                "The request body did not arrive in time\n",
            ));
        }
    };
    let opens_session = parts.method == http::Method::POST
        && !parts.headers.contains_key("mcp-session-id")
        && is_initialize(&bytes);
    if opens_session && sessions.sessions.read().await.len() >= limits.sessions {
        return Err(plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "Too many sessions are open; end one (DELETE) or try again later\n",
        ));
    }
    Ok((parts, bytes))
}

/// Whether a JSON-RPC message (or batch) holds an `initialize` request.
fn is_initialize(body: &[u8]) -> bool {
    let is = |v: &serde_json::Value| v.get("method").and_then(|m| m.as_str()) == Some("initialize");
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(serde_json::Value::Array(batch)) => batch.iter().any(is),
        Ok(message) => is(&message),
        Err(_) => false,
    }
}

/// A running HTTP server.
pub struct HttpServer {
    addr: SocketAddr,
    stop: CancellationToken,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl HttpServer {
    /// Binds and starts serving; refuses a non-loopback address without a
    /// token.
    pub async fn start(live: Arc<Live>, options: HttpOptions) -> Result<HttpServer, ServeError> {
        let loopback = options.addr.ip().is_loopback();
        if !loopback && options.token.is_none() {
            return Err(ServeError::Unsafe(format!(
                "{} is not a loopback address: serving it needs --token-file, so that only \
                 clients holding the token are answered",
                options.addr
            )));
        }
        let listener = TcpListener::bind(options.addr)
            .await
            .map_err(|error| ServeError::Bind {
                addr: options.addr,
                error,
            })?;
        let addr = listener.local_addr().map_err(|error| ServeError::Bind {
            addr: options.addr,
            error,
        })?;
        let stop = CancellationToken::new();
        let sessions = Arc::new(LocalSessionManager::default());
        let hosts = host_check(&options, addr);
        let service = Arc::new(service(
            live.clone(),
            &options,
            addr,
            &hosts,
            sessions.clone(),
            stop.child_token(),
        ));
        let front = Arc::new(Front {
            live,
            hosts,
            sessions,
        });
        let task = tokio::spawn(accept(listener, service, front, options, stop.clone()));
        Ok(HttpServer {
            addr,
            stop,
            task: Some(task),
        })
    }

    /// The address it listens on (the port chosen, when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL clients use.
    pub fn url(&self) -> String {
        format!("http://{}{PATH}", self.addr)
    }

    /// Waits until the server stops.
    pub async fn wait(&mut self) {
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    /// Stops accepting, ends every session and waits.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        self.wait().await;
    }
}

type Service = StreamableHttpService<Handler, LocalSessionManager>;

/// The host names clients may use, for `Host` and `Origin`.
fn host_names(options: &HttpOptions, addr: SocketAddr) -> Vec<String> {
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    let ip = addr.ip();
    if !ip.is_loopback() && !ip.is_unspecified() {
        hosts.push(ip.to_string());
    }
    hosts.extend(options.allowed_hosts.iter().cloned());
    hosts
}

/// The `Host` check. Bound to every address, the server cannot know the
/// names clients use; the token (required there) is what keeps others out.
fn host_check(options: &HttpOptions, addr: SocketAddr) -> Hosts {
    let any = addr.ip().is_unspecified() && options.allowed_hosts.is_empty();
    Hosts((!any).then(|| host_names(options, addr)))
}

fn service(
    live: Arc<Live>,
    options: &HttpOptions,
    addr: SocketAddr,
    hosts: &Hosts,
    sessions: Arc<LocalSessionManager>,
    stop: CancellationToken,
) -> Service {
    let mut origins: Vec<String> = Vec::new();
    for host in &host_names(options, addr) {
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.clone()
        };
        origins.push(format!("http://{host}:*"));
        origins.push(format!("https://{host}:*"));
    }
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(origins)
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_sse_keep_alive(Some(Duration::from_secs(15)))
        .with_cancellation_token(stop);
    config = match &hosts.0 {
        None => config.disable_allowed_hosts(),
        Some(hosts) => config.with_allowed_hosts(hosts.clone()),
    };
    let server_config = Arc::new(server_config());
    StreamableHttpService::new(
        move || Ok(Handler::new(live.clone(), server_config.clone())),
        sessions,
        config,
    )
}

/// What requests are answered from before rmcp sees them.
struct Front {
    live: Arc<Live>,
    hosts: Hosts,
    sessions: Arc<LocalSessionManager>,
}

async fn accept(
    listener: TcpListener,
    service: Arc<Service>,
    front: Arc<Front>,
    options: HttpOptions,
    stop: CancellationToken,
) {
    let slots = Arc::new(Semaphore::new(options.max_connections.max(1)));
    let token: Option<Arc<str>> = options.token.as_deref().map(Arc::from);
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!(error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::warn!(
                "refused a connection: {} are open already",
                options.max_connections
            );
            continue;
        };
        let service = service.clone();
        let token = token.clone();
        let stop = stop.clone();
        let header_timeout = options.header_timeout;
        let limits = BodyLimits {
            bytes: options.max_body_bytes,
            timeout: options.body_timeout,
            sessions: options.max_sessions,
        };
        let front = front.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let handle = hyper::service::service_fn(move |request: Request<Incoming>| {
                let service = service.clone();
                let token = token.clone();
                let front = front.clone();
                async move {
                    if request.uri().path() != PATH {
                        return Ok::<_, Infallible>(plain(StatusCode::NOT_FOUND, "Not Found\n"));
                    }
                    if !authorized(token.as_deref(), &request) {
                        let mut response = plain(StatusCode::UNAUTHORIZED, "Unauthorized\n");
                        response.headers_mut().insert(
                            header::WWW_AUTHENTICATE,
                            header::HeaderValue::from_static("Bearer"),
                        );
                        return Ok(response);
                    }
                    let (parts, bytes) = match bounded(request, limits, &front.sessions).await {
                        Ok(read) => read,
                        Err(response) => return Ok(response),
                    };
                    if let Some(response) =
                        listing::answer(&front.live, &front.hosts, &front.sessions, &parts, &bytes)
                            .await
                    {
                        return Ok(response);
                    }
                    Ok(service
                        .handle(Request::from_parts(parts, Full::new(bytes)))
                        .await)
                }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(TokioIo::new(stream), handle);
            tokio::select! {
                _ = stop.cancelled() => {}
                // A client that goes away ends only its own connection.
                _ = connection => {}
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole_and_short_ones_are_refused() {
        assert!(same(b"abcdef", b"abcdef"));
        assert!(!same(b"abcdef", b"abcdeg"));
        assert!(!same(b"abc", b"abcdef"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "short\n").unwrap();
        assert!(read_token(&path).is_err());
        std::fs::write(&path, "0123456789abcdef0123\nignored\n").unwrap();
        assert_eq!(read_token(&path).unwrap(), "0123456789abcdef0123");
        assert!(read_token(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn a_token_path_naming_a_device_or_a_folder_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        for path in [Path::new("/dev/zero"), dir.path()] {
            let refused = read_token(path).unwrap_err().to_string();
            assert!(refused.contains("not a regular file"), "{refused}");
        }
        let big = dir.path().join("big");
        std::fs::write(&big, "t".repeat(100_000)).unwrap();
        let refused = read_token(&big).unwrap_err().to_string();
        assert!(refused.contains("larger than"), "{refused}");
    }
}
