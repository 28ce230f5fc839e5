//! The HTTP capability (`wasi:http`): outgoing requests only to the origins
//! granted to the provider, and never waiting past its call's deadline
//! (host code cannot be interrupted by the epoch, so every wait is bounded
//! by the time the call has left).
//!
//! What a provider can make the host hold is bounded too: a few requests
//! in flight, header maps of a few kilobytes (a provider granted no origin
//! can build requests it will never send, so its bound is smaller), request
//! bodies of 1 MiB and response bodies of 64 MiB, buffered 64 KiB at a time.

use crate::sandbox::refusals::{Refusals, Refused};
use http_body_util::{BodyExt, Limited};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use wasmtime::component::ResourceTable;
use wasmtime_wasi_http::{
    Error, RequestOptions, WasiBody, WasiHttpCtx, WasiHttpCtxView, WasiHttpHooks,
};

/// Longest a connection, first byte or gap between bytes may take, even
/// when the call has more time.
const MAX_WAIT: Duration = Duration::from_secs(30);
/// Most requests one instance may have in flight.
pub const MAX_IN_FLIGHT: usize = 8;
/// Largest request body sent, in bytes.
pub const MAX_REQUEST_BODY: usize = 1024 * 1024;
/// Largest response body received, in bytes.
pub const MAX_RESPONSE_BODY: usize = 64 * 1024 * 1024;
/// Largest header map, in bytes, for a provider granted origins / none.
const FIELDS_WITH_ORIGINS: usize = 64 * 1024;
const FIELDS_WITHOUT_ORIGINS: usize = 4 * 1024;
/// How much of an outgoing body is buffered at a time.
const BODY_CHUNK: usize = 64 * 1024;

/// The `wasi:http` state of one instance: wasmtime's context and the gate
/// every request passes.
pub(crate) struct HttpCtx {
    ctx: WasiHttpCtx,
    gate: HttpGate,
}

impl HttpCtx {
    pub(crate) fn new(origins: &[String], refusals: Refusals) -> Self {
        let mut ctx = WasiHttpCtx::new();
        ctx.set_field_size_limit(if origins.is_empty() {
            FIELDS_WITHOUT_ORIGINS
        } else {
            FIELDS_WITH_ORIGINS
        });
        HttpCtx {
            ctx,
            gate: HttpGate::new(origins, refusals),
        }
    }
}

/// Counts one request in flight until its connection is done.
struct InFlight(Arc<AtomicUsize>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl HttpCtx {
    /// What `wasi:http` sees of the store during one host call: this
    /// context and its gate, the store's resource table, and the call's
    /// deadline, which bounds every wait of every request.
    pub(crate) fn view<'a>(
        &'a mut self,
        table: &'a mut ResourceTable,
        deadline: Instant,
    ) -> WasiHttpCtxView<'a> {
        self.gate.deadline = Some(deadline);
        WasiHttpCtxView {
            ctx: &mut self.ctx,
            table,
            hooks: &mut self.gate,
        }
    }
}

/// Decides each outgoing request of one provider instance.
#[derive(Debug, Clone, Default)]
struct HttpGate {
    origins: Vec<String>,
    refusals: Refusals,
    /// When the call in progress must end.
    deadline: Option<Instant>,
    in_flight: Arc<AtomicUsize>,
}

/// `scheme://host:port` of a URI, the port explicit.
pub fn origin_of(uri: &http::Uri) -> Option<String> {
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let host = uri.host()?.to_ascii_lowercase();
    let port = uri.port_u16().or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    })?;
    Some(format!("{scheme}://{host}:{port}"))
}

impl HttpGate {
    /// A gate letting requests through to `origins` only.
    fn new(origins: &[String], refusals: Refusals) -> Self {
        HttpGate {
            origins: origins.iter().map(|o| o.to_ascii_lowercase()).collect(),
            refusals,
            deadline: None,
            in_flight: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// A wait bounded by what the call has left. Only four fifths of it:
    /// the provider needs the rest to report the timeout as a diagnostic
    /// instead of being stopped mid-call.
    fn bounded(&self, wanted: Option<Duration>) -> Option<Duration> {
        let left = self.deadline.map_or(MAX_WAIT, |d| {
            d.saturating_duration_since(Instant::now()) * 4 / 5
        });
        Some(
            wanted
                .unwrap_or(MAX_WAIT)
                .min(left)
                .min(MAX_WAIT)
                .max(Duration::from_millis(1)),
        )
    }
}

type Sent = Box<
    dyn Future<
            Output = Result<
                (
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), Error>> + Send>,
                ),
                Error,
            >,
        > + Send,
>;

impl WasiHttpHooks for HttpGate {
    fn p2_outgoing_body_chunk_size(&mut self) -> usize {
        BODY_CHUNK
    }

    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), Error>> + Send>,
    ) -> Sent {
        drop(fut);
        let origin = origin_of(request.uri());
        let granted = origin.as_ref().is_some_and(|o| self.origins.contains(o));
        if !granted {
            let shown = origin.unwrap_or_else(|| request.uri().to_string());
            self.refusals.record(
                Refused::Http,
                format!("made an HTTP request to {shown}: refused, that origin is not granted"),
            );
            return Box::new(async { Err(Error::HttpRequestDenied) });
        }
        if self.in_flight.fetch_add(1, Ordering::AcqRel) >= MAX_IN_FLIGHT {
            self.in_flight.fetch_sub(1, Ordering::AcqRel);
            self.refusals.record(
                Refused::Http,
                format!("had more than {MAX_IN_FLIGHT} HTTP requests in flight: refused"),
            );
            return Box::new(async { Err(Error::ConnectionLimitReached) });
        }
        let guard = InFlight(self.in_flight.clone());
        let options = options.unwrap_or_default();
        let options = RequestOptions {
            connect_timeout: self.bounded(options.connect_timeout),
            first_byte_timeout: self.bounded(options.first_byte_timeout),
            between_bytes_timeout: self.bounded(options.between_bytes_timeout),
        };
        let request = request.map(|body| {
            Limited::new(body, MAX_REQUEST_BODY)
                .map_err(|e| over(e, Error::HttpRequestBodySize(Some(MAX_REQUEST_BODY as u64))))
                .boxed_unsync()
        });
        Box::new(async move {
            let (response, io) =
                wasmtime_wasi_http::default_send_request(request, Some(options)).await?;
            let response = response.map(|body| {
                Limited::new(body, MAX_RESPONSE_BODY)
                    .map_err(|e| {
                        over(
                            e,
                            Error::HttpResponseBodySize(Some(MAX_RESPONSE_BODY as u64)),
                        )
                    })
                    .boxed_unsync()
            });
            // The request counts as in flight until its connection is done.
            let io = async move {
                let _guard = guard;
                io.await
            };
            Ok((
                response,
                Box::new(io) as Box<dyn Future<Output = Result<(), Error>> + Send>,
            ))
        })
    }
}

/// The error a limited body ended with: its own, or `limit` when it was
/// the limit.
fn over(error: Box<dyn std::error::Error + Send + Sync>, limit: Error) -> Error {
    match error.downcast::<Error>() {
        Ok(own) => *own,
        Err(_) => limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_have_explicit_ports() {
        let origin = |u: &str| origin_of(&u.parse().unwrap());
        assert_eq!(
            origin("https://Skills.Example.com/x").as_deref(),
            Some("https://skills.example.com:443")
        );
        assert_eq!(
            origin("http://127.0.0.1:8080/i.json").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert_eq!(origin("http://h/").as_deref(), Some("http://h:80"));
    }
}
