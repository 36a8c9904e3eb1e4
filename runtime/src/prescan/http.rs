//! The pre-scan on Streamable HTTP: a tower layer in front of rmcp's `StreamableHttpService`.
//!
//! The layer reads a JSON POST body once, bounded by the same limit rmcp applies. A body that
//! cannot carry too many `inputResponses` keys (no more colons than the limit) and holds no
//! `null` goes to rmcp as it came, unscanned: rmcp decodes it, and [`crate::StrictParams`]
//! answers fields that do not fit rmcp's model. Only if rmcp cannot decode it (its 415) is it
//! scanned, and the client gets the pre-scan's -32602 under the request's id. Any other body is
//! scanned first. One the scan passes reaches rmcp byte for byte; one it refuses is still shown
//! to rmcp first, as a stand-in body rmcp cannot decode: every check rmcp makes before it
//! decodes a body (Host and Origin against DNS rebinding, `Accept`, `Content-Type`) runs on the
//! real headers, and only when rmcp gets as far as refusing the stand-in (its 415) does the
//! client get the -32602, as HTTP 200 like any JSON-RPC error. Either way the pre-scan never
//! answers a request rmcp would have turned away at the door.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use http::{Request, Response, StatusCode, header};
use http_body::{Body, Frame, SizeHint};
use http_body_util::{Either, Full};

use super::Prescan;

/// rmcp's default `StreamableHttpServerConfig::max_request_body_bytes`.
pub const DEFAULT_MAX_REQUEST_BODY_BYTES: usize = 4 * 1024 * 1024;

/// A body rmcp's decoder refuses (with 415) whatever else the request carries.
const UNDECODABLE: &[u8] = b"null";

/// Wraps rmcp's `StreamableHttpService` in the pre-scan. Apply it to the service itself, inside
/// any authentication layer:
///
/// ```ignore
/// let service = StreamableHttpService::new(make, sessions, config);
/// let prescan = mrtr::prescan::Prescan::new(runtime.limits().clone());
/// let router = axum::Router::new()
///     .nest_service("/mcp", mrtr::prescan::PrescanLayer::new(prescan).layer(service));
/// ```
#[derive(Clone, Debug)]
pub struct PrescanLayer {
    prescan: Prescan,
    max_body_bytes: usize,
}

impl PrescanLayer {
    pub fn new(prescan: Prescan) -> Self {
        Self {
            prescan,
            max_body_bytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
        }
    }

    /// Keep it equal to the service's `StreamableHttpServerConfig::max_request_body_bytes`: a
    /// larger body is not scanned, but passed on for rmcp to refuse (413).
    pub fn with_max_request_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }
}

impl<S> tower_layer::Layer<S> for PrescanLayer {
    type Service = PrescanService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        PrescanService {
            inner,
            prescan: self.prescan.clone(),
            max_body_bytes: self.max_body_bytes,
        }
    }
}

/// The service [`PrescanLayer`] builds.
#[derive(Clone, Debug)]
pub struct PrescanService<S> {
    inner: S,
    prescan: Prescan,
    max_body_bytes: usize,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B, RB> tower_service::Service<Request<B>> for PrescanService<S>
where
    S: tower_service::Service<Request<PrescannedBody<B>>, Response = Response<RB>>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    S::Error: Send,
    B: Body<Data = Bytes> + Unpin + Send + 'static,
    B::Error: Unpin + Send,
    RB: Send,
{
    type Response = Response<Either<RB, Full<Bytes>>>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The service polled ready is the one called; the clone waits for the next request.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let prescan = self.prescan.clone();
        let max_body_bytes = self.max_body_bytes;
        Box::pin(async move {
            let left = |response: Response<RB>| response.map(Either::Left);
            if !is_json_post(&request) {
                let request = request.map(PrescannedBody::untouched);
                return inner.call(request).await.map(left);
            }
            let (parts, body) = request.into_parts();
            let bytes = match collect(body, max_body_bytes).await {
                Ok(bytes) => bytes,
                Err(unscanned) => {
                    return inner
                        .call(Request::from_parts(parts, unscanned))
                        .await
                        .map(left);
                }
            };
            if prescan.rmcp_may_read_first(&bytes) {
                // rmcp decodes every body anyway, and almost every body decodes: rmcp goes
                // first, and only a body it could not read (its 415) is scanned, to answer it
                // under its id. Fields that decode but do not fit rmcp's model reach
                // `StrictParams` as a custom request, which answers the same -32602.
                let request = Request::from_parts(parts, PrescannedBody::whole(bytes.clone()));
                let response = inner.call(request).await?;
                if response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
                    return Ok(left(response));
                }
                return Ok(match prescan.refusal(&bytes) {
                    Some(refusal) => refused(refusal),
                    None => left(response),
                });
            }
            let Some(refusal) = prescan.refusal(&bytes) else {
                let request = Request::from_parts(parts, PrescannedBody::whole(bytes));
                return inner.call(request).await.map(left);
            };
            let stand_in = Request::from_parts(parts, PrescannedBody::whole(UNDECODABLE.into()));
            let checked = inner.call(stand_in).await?;
            if checked.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
                return Ok(left(checked));
            }
            Ok(refused(refusal))
        })
    }
}

/// The pre-scan's JSON-RPC error, as HTTP 200 like any other.
fn refused<RB>(refusal: Vec<u8>) -> Response<Either<RB, Full<Bytes>>> {
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Either::Right(Full::new(Bytes::from(refusal))))
        .expect("a valid response")
}

/// A POST whose body rmcp would try to decode: the same `Content-Type` test as rmcp's.
fn is_json_post<B>(request: &Request<B>) -> bool {
    request.method() == http::Method::POST
        && request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| {
                let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
                essence.trim().eq_ignore_ascii_case("application/json")
            })
}

/// The whole body, or — past `max_bytes`, or when reading it fails — the body as read so far
/// followed by whatever remains, for rmcp to refuse as it would have.
async fn collect<B>(mut body: B, max_bytes: usize) -> Result<Bytes, PrescannedBody<B>>
where
    B: Body<Data = Bytes> + Unpin,
{
    let mut collected = Collected::Empty;
    loop {
        match poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            None => return Ok(collected.into_bytes()),
            Some(Ok(frame)) => {
                // Trailers carry no message; rmcp skips them too.
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                let over = data.len() > max_bytes.saturating_sub(collected.len());
                collected.push(data);
                if over {
                    return Err(PrescannedBody {
                        prefix: Some(collected.into_bytes()),
                        error: None,
                        rest: Some(body),
                    });
                }
            }
            Some(Err(error)) => {
                return Err(PrescannedBody {
                    prefix: Some(collected.into_bytes()),
                    error: Some(error),
                    rest: None,
                });
            }
        }
    }
}

/// A body read so far. hyper hands a request's body over as one frame (a slice of its read
/// buffer) almost every time; that frame is kept as it came, and only a second one makes a
/// buffer to copy both into. Copying every body cost a heap block and a copy per request.
enum Collected {
    Empty,
    One(Bytes),
    Many(BytesMut),
}

impl Collected {
    fn len(&self) -> usize {
        match self {
            Collected::Empty => 0,
            Collected::One(bytes) => bytes.len(),
            Collected::Many(buffer) => buffer.len(),
        }
    }

    fn push(&mut self, data: Bytes) {
        *self = match std::mem::replace(self, Collected::Empty) {
            Collected::Empty => Collected::One(data),
            Collected::One(first) => {
                let mut buffer = BytesMut::with_capacity(first.len() + data.len());
                buffer.extend_from_slice(&first);
                buffer.extend_from_slice(&data);
                Collected::Many(buffer)
            }
            Collected::Many(mut buffer) => {
                buffer.extend_from_slice(&data);
                Collected::Many(buffer)
            }
        };
    }

    fn into_bytes(self) -> Bytes {
        match self {
            Collected::Empty => Bytes::new(),
            Collected::One(bytes) => bytes,
            Collected::Many(buffer) => buffer.freeze(),
        }
    }
}

/// The body rmcp reads behind [`PrescanLayer`]: the bytes the layer read (all of them, or the
/// stand-in), then whatever of the original body it did not read.
pub struct PrescannedBody<B: Body> {
    prefix: Option<Bytes>,
    error: Option<B::Error>,
    rest: Option<B>,
}

impl<B: Body> PrescannedBody<B> {
    fn untouched(body: B) -> Self {
        Self {
            prefix: None,
            error: None,
            rest: Some(body),
        }
    }

    fn whole(bytes: Bytes) -> Self {
        Self {
            prefix: Some(bytes),
            error: None,
            rest: None,
        }
    }
}

impl<B> Body for PrescannedBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.get_mut();
        if let Some(prefix) = this.prefix.take() {
            return Poll::Ready(Some(Ok(Frame::data(prefix))));
        }
        if let Some(error) = this.error.take() {
            return Poll::Ready(Some(Err(error)));
        }
        match this.rest.as_mut() {
            Some(rest) => Pin::new(rest).poll_frame(cx),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.prefix.is_none()
            && self.error.is_none()
            && self.rest.as_ref().is_none_or(Body::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        let prefix = self.prefix.as_ref().map_or(0, |bytes| bytes.len() as u64);
        let rest = self
            .rest
            .as_ref()
            .map_or(SizeHint::with_exact(0), Body::size_hint);
        let mut hint = SizeHint::new();
        hint.set_lower(rest.lower() + prefix);
        if let Some(upper) = rest.upper() {
            hint.set_upper(upper + prefix);
        }
        hint
    }
}

impl<B: Body> std::fmt::Debug for PrescannedBody<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrescannedBody")
            .field("prefix", &self.prefix.as_ref().map(Bytes::len))
            .field("rest", &self.rest.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;

    /// A body that yields the given frames (data, or an error for `None`) one poll at a time.
    struct Frames(VecDeque<Option<&'static [u8]>>);

    impl Body for Frames {
        type Data = Bytes;
        type Error = &'static str;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            Poll::Ready(self.0.pop_front().map(|frame| {
                frame
                    .map(|data| Frame::data(Bytes::from_static(data)))
                    .ok_or("connection reset")
            }))
        }
    }

    fn frames(list: &[Option<&'static [u8]>]) -> Frames {
        Frames(list.iter().copied().collect())
    }

    /// Everything a `PrescannedBody` yields, in order: data, then the error if it has one.
    async fn read_all(mut body: PrescannedBody<Frames>) -> (Vec<u8>, Option<&'static str>) {
        let mut out = Vec::new();
        while let Some(frame) = poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            match frame {
                Ok(frame) => out.extend_from_slice(&frame.into_data().unwrap_or_default()),
                Err(error) => return (out, Some(error)),
            }
        }
        (out, None)
    }

    #[tokio::test]
    async fn a_body_of_one_frame_is_kept_as_it_came_not_copied() {
        static BODY: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#;
        let collected = collect(frames(&[Some(BODY)]), 1 << 20).await;
        let bytes = collected.expect("whole");
        assert_eq!(bytes.as_ptr(), BODY.as_ptr());
    }

    #[tokio::test]
    async fn frames_are_joined_in_order_and_an_empty_body_is_empty() {
        let collected = collect(frames(&[Some(b"{\"a\":"), Some(b""), Some(b"1}")]), 64).await;
        assert_eq!(collected.expect("whole"), Bytes::from_static(b"{\"a\":1}"));
        let empty = collect(frames(&[]), 64).await;
        assert_eq!(empty.expect("whole"), Bytes::new());
    }

    #[tokio::test]
    async fn past_the_limit_the_body_goes_on_unscanned_and_whole() {
        for limit in [0, 3, 4, 5] {
            let result = collect(frames(&[Some(b"abcd"), Some(b"ef"), Some(b"gh")]), limit).await;
            let Err(unscanned) = result else {
                panic!("a body of 8 bytes is over a limit of {limit}");
            };
            assert_eq!(read_all(unscanned).await, (b"abcdefgh".to_vec(), None));
        }
        let fits = collect(frames(&[Some(b"abcd"), Some(b"ef")]), 6).await;
        assert_eq!(fits.expect("whole"), Bytes::from_static(b"abcdef"));
    }

    #[tokio::test]
    async fn a_read_error_is_passed_on_after_what_was_read() {
        for read in [
            &[][..],
            &[Some(&b"ab"[..])],
            &[Some(&b"ab"[..]), Some(b"cd")],
        ] {
            let mut list = read.to_vec();
            list.push(None);
            list.push(Some(b"never read"));
            let Err(unscanned) = collect(frames(&list), 64).await else {
                panic!("a failed read is not a body");
            };
            let expected: Vec<u8> = read
                .iter()
                .flat_map(|data| data.unwrap().to_vec())
                .collect();
            assert_eq!(
                read_all(unscanned).await,
                (expected, Some("connection reset"))
            );
        }
    }
}
