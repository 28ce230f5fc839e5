//! MCP Streamable HTTP at `/mcp`, safe by default: loopback unless told
//! otherwise, and then only with a bearer token; `Host` and `Origin`
//! checked against DNS rebinding; request bodies, header waits and open
//! connections bounded; a connection that moves no bytes, or whose client
//! stops reading, is closed after its timeout (`timed_io`); what answers
//! may hold while they wait is budgeted (`limits`). Each connection runs
//! on its own task, so a client that goes away mid-response costs no other
//! session anything. A plain
//! `skills/list` is answered from the view's serialized pages before rmcp
//! sees it (`crate::listing` says why, and what keeps the answer equal to
//! rmcp's).

mod limits;
mod timed_io;
mod token;

pub use limits::MAX_LISTEN_URIS;
pub use token::{MIN_TOKEN_BITS, read_token, strength};

use crate::error::ServeError;
use crate::handler::{Handler, server_config};
use crate::listing::{self, Hosts};
use crate::live::Live;
use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use limits::{Budgets, Held, Refused};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// The path the server answers at.
pub const PATH: &str = "/mcp";

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
    /// Longest a write may wait for the client to read; then the
    /// connection is closed, with whatever answer it still held.
    pub write_timeout: Duration,
    /// Longest a connection may move no byte either way.
    pub idle_timeout: Duration,
    /// Most bytes all `resources/read` answers may hold at once, while
    /// they are made and until their clients read them.
    pub max_pending_read_bytes: usize,
    /// Longest a read waits for its share of that budget before it is
    /// answered 503.
    pub read_wait: Duration,
    /// Most `subscriptions/listen` streams open at once.
    pub max_listen_streams: usize,
    /// Whether a plain `skills/list` is answered in front of rmcp from the
    /// view's cached pages (`mcp/src/listing.rs`); off, rmcp answers every
    /// request, as the benchmark does to show what the fast path buys.
    pub fast_listing: bool,
}

impl HttpOptions {
    /// Listening on `addr` with the defaults: 1 MiB bodies, 1,024
    /// connections, 512 sessions, 10 s for headers and 30 s for a body,
    /// 30 s for a write and 120 s idle, 192 MiB for reads in flight (each
    /// waiting up to 10 s for its share), 512 listen streams, no token,
    /// the `skills/list` fast path on.
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
            write_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(120),
            max_pending_read_bytes: 192 << 20,
            read_wait: Duration::from_secs(10),
            max_listen_streams: 512,
            fast_listing: true,
        }
    }
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
}

/// Reads the body within its size and time limits; a client sending its
/// body slowly costs only itself.
async fn bounded(
    request: Request<Incoming>,
    limits: BodyLimits,
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
    Ok((parts, bytes))
}

/// A JSON-RPC error answered by the front door, as rmcp would shape it.
fn rpc_error(
    status: StatusCode,
    id: Value,
    code: i64,
    message: &str,
) -> Response<BoxBody<Bytes, Infallible>> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    });
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    response
}

/// What the front door learnt from a POST body it parsed once.
struct Posted {
    /// The body to hand on (rewritten when a listen filter was cut down).
    bytes: Bytes,
    /// Whether it opens a session (an `initialize`).
    opens_session: bool,
    /// The file a `resources/read` names.
    reads: Option<String>,
    /// Whether it opens a listen stream.
    listens: bool,
}

/// Parses a POST body once: malformed JSON is answered 400 with the
/// JSON-RPC parse error (-32700); a listen filter is de-duplicated and
/// capped. Batches are looked into for `initialize` only.
fn posted(bytes: Bytes) -> Result<Posted, Box<Response<BoxBody<Bytes, Infallible>>>> {
    let mut message: Value = serde_json::from_slice(&bytes).map_err(|e| {
        Box::new(rpc_error(
            StatusCode::BAD_REQUEST,
            Value::Null,
            -32700,
            &format!("Parse error: the body is not JSON ({e})"),
        ))
    })?;
    let method = |v: &Value| v.get("method").and_then(Value::as_str).map(str::to_string);
    if let Value::Array(batch) = &message {
        let opens_session = batch
            .iter()
            .any(|m| method(m).as_deref() == Some("initialize"));
        return Ok(Posted {
            bytes,
            opens_session,
            reads: None,
            listens: false,
        });
    }
    let name = method(&message);
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let bytes = match limits::dedupe_listen_filter(&mut message) {
        Ok(false) => bytes,
        Ok(true) => Bytes::from(message.to_string()),
        Err(why) => return Err(Box::new(rpc_error(StatusCode::OK, id, -32602, &why))),
    };
    let reads = (name.as_deref() == Some("resources/read"))
        .then(|| {
            message
                .pointer("/params/uri")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .flatten();
    Ok(Posted {
        bytes,
        opens_session: name.as_deref() == Some("initialize"),
        listens: name.as_deref() == Some("subscriptions/listen"),
        reads,
    })
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
            budgets: Budgets::new(
                options.max_pending_read_bytes,
                options.read_wait,
                options.max_listen_streams,
            ),
            max_sessions: options.max_sessions,
            fast_listing: options.fast_listing,
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
    budgets: Budgets,
    max_sessions: usize,
    fast_listing: bool,
}

impl Front {
    /// Answers one authorized request at [`PATH`]: from the front door
    /// where it can (a refusal, a plain `skills/list`), else through rmcp,
    /// holding whatever share of a budget the request needs until its
    /// response is written.
    async fn answer(
        &self,
        service: &Service,
        request: Request<Incoming>,
        limits: BodyLimits,
    ) -> Response<BoxBody<Bytes, Infallible>> {
        let (parts, bytes) = match bounded(request, limits).await {
            Ok(read) => read,
            Err(response) => return response,
        };
        let mut share = None;
        let bytes = if parts.method == http::Method::POST {
            let posted = match posted(bytes) {
                Ok(posted) => posted,
                Err(response) => return *response,
            };
            if posted.opens_session
                && self.sessions.sessions.read().await.len() >= self.max_sessions
            {
                return plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Too many sessions are open; end one (DELETE) or try again later\n",
                );
            }
            if posted.listens {
                match self.budgets.stream() {
                    Ok(slot) => share = Some(slot),
                    Err(_) => {
                        return plain(
                            StatusCode::SERVICE_UNAVAILABLE,
                            "Too many listen streams are open; close one or try again later\n",
                        );
                    }
                }
            }
            if let Some(uri) = &posted.reads {
                let size = self.live.view().file(uri).map(|(_, file)| file.size);
                if let Some(size) = size {
                    match self.budgets.read(limits::reservation(size)).await {
                        Ok(permit) => share = Some(permit),
                        Err(Refused::Busy | Refused::Streams) => {
                            return plain(
                                StatusCode::SERVICE_UNAVAILABLE,
                                "The server is holding as many answers as it may for clients \
                                 that have not read them yet; try again later\n",
                            );
                        }
                    }
                }
            }
            posted.bytes
        } else {
            bytes
        };
        if self.fast_listing
            && let Some(response) =
                listing::answer(&self.live, &self.hosts, &self.sessions, &parts, &bytes).await
        {
            return response;
        }
        let response = service
            .handle(Request::from_parts(parts, Full::new(bytes)))
            .await;
        match share {
            None => response,
            Some(share) => response.map(|body| Held::new(body, share).boxed()),
        }
    }
}

/// A connection set up to answer requests without waiting: an answer
/// streamed as events goes out in several small writes, and with Nagle's
/// algorithm on, each write after the first waits for the client's
/// acknowledgement, which clients delay (by 40 ms on Linux) — every request
/// would pay that wait.
fn answering(stream: tokio::net::TcpStream) -> tokio::net::TcpStream {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "could not turn off Nagle's algorithm on a connection");
    }
    stream
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
            Ok((stream, _)) => answering(stream),
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
        };
        let stream = timed_io::TimedIo::new(stream, options.write_timeout, options.idle_timeout);
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
                    if !token::authorized(token.as_deref(), &request) {
                        let mut response = plain(StatusCode::UNAUTHORIZED, "Unauthorized\n");
                        response.headers_mut().insert(
                            header::WWW_AUTHENTICATE,
                            header::HeaderValue::from_static("Bearer"),
                        );
                        return Ok(response);
                    }
                    Ok(front.answer(&service, request, limits).await)
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
    #[tokio::test]
    async fn an_accepted_connection_sends_each_write_at_once() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (_client, accepted) =
            tokio::join!(tokio::net::TcpStream::connect(addr), listener.accept());
        let (stream, _) = accepted.unwrap();
        assert!(
            !stream.nodelay().unwrap(),
            "a new socket batches its writes"
        );
        assert!(super::answering(stream).nodelay().unwrap());
    }
}
