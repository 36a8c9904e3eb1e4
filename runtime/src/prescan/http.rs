//! The pre-scan on Streamable HTTP: a tower layer in front of rmcp's `StreamableHttpService`.
//!
//! The layer hands rmcp a POST's body wrapped: the wrapper holds the frames back as rmcp
//! reads them, bounded by the same limit rmcp applies, and decides at the last one. A body that
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
//!
//! What the pass over a body rmcp reads first counted (its brackets and bytes) stays with the
//! request ([`ScannedBody`], in its HTTP extensions): within the runtime's limits it proves the
//! decoded `inputResponses` within their depth and size limits, and the round skips walking them
//! (`crate::limits::RawBounds`).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

use bytes::{Bytes, BytesMut};
use http::{Request, Response, StatusCode, header};
use http_body::{Body, Frame, SizeHint};
use http_body_util::{Either, Full};

use super::Prescan;
use crate::limits::RawBounds;
use crate::unpoisoned;

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
///
/// It calls rmcp at once, with the body wrapped: the wrapper reads the body as rmcp reads it and
/// holds every frame back until the last has come, then decides what rmcp gets (the body, or
/// the stand-in). Collecting the body in a future of the layer's own, and only then calling a
/// clone of rmcp's service, cost a boxed future and a clone of the service per request, and
/// about 2% of the example server's throughput.
#[derive(Clone, Debug)]
pub struct PrescanService<S> {
    inner: S,
    prescan: Prescan,
    max_body_bytes: usize,
}

impl<S, B, RB> tower_service::Service<Request<B>> for PrescanService<S>
where
    S: tower_service::Service<Request<PrescannedBody<B>>, Response = Response<RB>>,
    B: Body<Data = Bytes> + Unpin,
    B::Error: Unpin,
{
    type Response = Response<Either<RB, Full<Bytes>>>;
    type Error = S::Error;
    type Future = PrescanFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // Any POST: rmcp checks the `Content-Type` itself, before it reads a body, and a body it
        // never reads leaves nothing to scan (its 415 then stays its own).
        if request.method() != http::Method::POST {
            return PrescanFuture {
                inner: self.inner.call(request.map(PrescannedBody::untouched)),
                scan: None,
            };
        }
        let scan = Scan::new(self.prescan.clone(), self.max_body_bytes);
        let mut request = request.map(|body| PrescannedBody::scanning(body, scan.clone()));
        request.extensions_mut().insert(ScannedBody(scan.clone()));
        PrescanFuture {
            inner: self.inner.call(request),
            scan: Some(scan),
        }
    }
}

/// One POST under the pre-scan: what its body wrapper found, for its response to read.
#[derive(Debug)]
struct Scan {
    prescan: Prescan,
    max_body_bytes: usize,
    finding: Mutex<Finding>,
}

/// The scan of the body a request came in, in its HTTP extensions (which rmcp hands to the
/// handler with the request's `Parts`): once the body has been read, what it counted lets the
/// round skip the walk that checks the decoded `inputResponses` against the limits.
#[derive(Clone, Debug)]
pub(crate) struct ScannedBody(Arc<Scan>);

impl ScannedBody {
    pub(crate) fn bounds(&self) -> Option<RawBounds> {
        match *self.0.lock() {
            Finding::Unscanned(_, bounds) => Some(bounds),
            Finding::Nothing | Finding::Refused(_) => None,
        }
    }
}

#[derive(Debug)]
enum Finding {
    /// The body was not read to its end (rmcp refused the request at the door), or it was
    /// passed on past the size limit or after a read error, or it was scanned and passed.
    Nothing,
    /// The body went to rmcp unscanned, as rmcp may read it first: scanned only if rmcp
    /// cannot decode it. With what the pass over it counted, set before rmcp reads it (kept
    /// under the lock the finding needs anyway: a `OnceLock` of its own cost a per-request
    /// `Once` and its code).
    Unscanned(Bytes, RawBounds),
    /// The scan refused the body; rmcp was shown the stand-in.
    Refused(Vec<u8>),
}

impl Scan {
    fn new(prescan: Prescan, max_body_bytes: usize) -> Arc<Self> {
        Arc::new(Scan {
            prescan,
            max_body_bytes,
            finding: Mutex::new(Finding::Nothing),
        })
    }

    /// What rmcp reads of the whole body `bytes`: it, or the stand-in for one the scan refuses.
    /// A body rmcp may read first is scanned only if rmcp cannot decode it (its 415): rmcp
    /// decodes every body anyway, and almost every body decodes. Fields that decode but do not
    /// fit rmcp's model reach `StrictParams` as a custom request, which answers the same -32602.
    fn decide(&self, bytes: Bytes) -> Bytes {
        if let Some(bounds) = self.prescan.rmcp_may_read_first(&bytes) {
            *self.lock() = Finding::Unscanned(bytes.clone(), bounds);
            return bytes;
        }
        match self.prescan.refusal(&bytes) {
            None => bytes,
            Some(refusal) => {
                *self.lock() = Finding::Refused(refusal);
                Bytes::from_static(UNDECODABLE)
            }
        }
    }

    /// The -32602 that replaces rmcp's 415, if the body has one.
    fn refusal(&self) -> Option<Vec<u8>> {
        match std::mem::replace(&mut *self.lock(), Finding::Nothing) {
            Finding::Nothing => None,
            Finding::Unscanned(bytes, _) => self.prescan.refusal(&bytes),
            Finding::Refused(refusal) => Some(refusal),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Finding> {
        unpoisoned::lock(&self.finding)
    }
}

pin_project_lite::pin_project! {
    /// The response of [`PrescanService`]: rmcp's, or — when rmcp could not decode what the
    /// body wrapper gave it (its 415) and the pre-scan has a refusal for it — the pre-scan's
    /// -32602 under the request's id. Every check rmcp makes before it decodes a body (Host and
    /// Origin against DNS rebinding, `Accept`, `Content-Type`) runs on the real headers, so the
    /// pre-scan never answers a request rmcp would have turned away at the door.
    pub struct PrescanFuture<F> {
        #[pin]
        inner: F,
        scan: Option<Arc<Scan>>,
    }
}

impl<F, RB, E> Future for PrescanFuture<F>
where
    F: Future<Output = Result<Response<RB>, E>>,
{
    type Output = Result<Response<Either<RB, Full<Bytes>>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.inner.poll(cx))?;
        let refusal = match this.scan.take() {
            Some(scan) if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE => scan.refusal(),
            _ => None,
        };
        Poll::Ready(Ok(match refusal {
            Some(refusal) => refused(refusal),
            None => response.map(Either::Left),
        }))
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

/// The body rmcp reads behind [`PrescanLayer`]. A POST's body is held back frame by frame
/// until its end; then rmcp gets all of it, or the stand-in if the pre-scan refuses it. Past
/// the size limit, or after a read error, rmcp gets what was read and then the rest of the body
/// (or the error), unscanned, to refuse as it would have. Any other body goes through untouched.
pub struct PrescannedBody<B: Body> {
    state: State<B>,
}

enum State<B: Body> {
    Holding {
        body: B,
        read: Collected,
        scan: Arc<Scan>,
    },
    Passing {
        prefix: Option<Bytes>,
        error: Option<B::Error>,
        rest: Option<B>,
    },
}

impl<B: Body> PrescannedBody<B> {
    fn untouched(body: B) -> Self {
        Self::passing(None, None, Some(body))
    }

    fn scanning(body: B, scan: Arc<Scan>) -> Self {
        Self {
            state: State::Holding {
                body,
                read: Collected::Empty,
                scan,
            },
        }
    }

    fn passing(prefix: Option<Bytes>, error: Option<B::Error>, rest: Option<B>) -> Self {
        Self {
            state: State::passing(prefix, error, rest),
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
        while let State::Holding { body, read, scan } = &mut this.state {
            // What rmcp gets next: these bytes, then this error, then (if true) the rest.
            let (prefix, error, rest_too) = match ready!(Pin::new(&mut *body).poll_frame(cx)) {
                None => {
                    let bytes = std::mem::replace(read, Collected::Empty).into_bytes();
                    (scan.decide(bytes), None, false)
                }
                Some(Ok(frame)) => {
                    // Trailers carry no message; rmcp skips them too.
                    let Ok(data) = frame.into_data() else {
                        continue;
                    };
                    let over = data.len() > scan.max_body_bytes.saturating_sub(read.len());
                    read.push(data);
                    if !over {
                        continue;
                    }
                    (
                        std::mem::replace(read, Collected::Empty).into_bytes(),
                        None,
                        true,
                    )
                }
                Some(Err(error)) => {
                    let read = std::mem::replace(read, Collected::Empty).into_bytes();
                    (read, Some(error), false)
                }
            };
            let State::Holding { body, .. } = std::mem::replace(&mut this.state, State::empty())
            else {
                unreachable!("the loop runs on a holding body");
            };
            this.state = State::passing(Some(prefix), error, rest_too.then_some(body));
        }
        let State::Passing {
            prefix,
            error,
            rest,
        } = &mut this.state
        else {
            unreachable!("the loop leaves only a passing body");
        };
        if let Some(prefix) = prefix.take() {
            return Poll::Ready(Some(Ok(Frame::data(prefix))));
        }
        if let Some(error) = error.take() {
            return Poll::Ready(Some(Err(error)));
        }
        match rest.as_mut() {
            Some(rest) => Pin::new(rest).poll_frame(cx),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.state {
            State::Holding { .. } => false,
            State::Passing {
                prefix,
                error,
                rest,
            } => {
                prefix.is_none() && error.is_none() && rest.as_ref().is_none_or(Body::is_end_stream)
            }
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.state {
            // What is held back is what the body hints, or the stand-in (smaller).
            State::Holding { body, read, .. } => {
                let rest = body.size_hint();
                let mut hint = SizeHint::new();
                if let Some(upper) = rest.upper() {
                    hint.set_upper(upper + read.len() as u64);
                }
                hint
            }
            State::Passing { prefix, rest, .. } => {
                let prefix = prefix.as_ref().map_or(0, |bytes| bytes.len() as u64);
                let rest = rest
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
    }
}

impl<B: Body> State<B> {
    /// What rmcp reads from here on: `prefix`, then `error`, then what is left of `rest`.
    fn passing(prefix: Option<Bytes>, error: Option<B::Error>, rest: Option<B>) -> Self {
        State::Passing {
            prefix,
            error,
            rest,
        }
    }

    fn empty() -> Self {
        Self::passing(None, None, None)
    }
}

impl<B: Body> std::fmt::Debug for PrescannedBody<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.state {
            State::Holding { read, .. } => f
                .debug_struct("PrescannedBody")
                .field("held", &read.len())
                .finish(),
            State::Passing { prefix, rest, .. } => f
                .debug_struct("PrescannedBody")
                .field("prefix", &prefix.as_ref().map(Bytes::len))
                .field("rest", &rest.is_some())
                .finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use tower_service::Service;

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

    fn scan(max_body_bytes: usize) -> Arc<Scan> {
        Scan::new(Prescan::default(), max_body_bytes)
    }

    /// The frames a `PrescannedBody` yields, in order, and the error if one ends it.
    async fn frames_read(mut body: PrescannedBody<Frames>) -> (Vec<Bytes>, Option<&'static str>) {
        let mut out = Vec::new();
        while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
        {
            match frame {
                Ok(frame) => out.push(frame.into_data().unwrap_or_default()),
                Err(error) => return (out, Some(error)),
            }
        }
        (out, None)
    }

    /// What rmcp reads of `list` behind a pre-scan with this size limit: the bytes, in one
    /// piece, and the error if one ends them.
    async fn read_through(
        list: &[Option<&'static [u8]>],
        max_body_bytes: usize,
    ) -> (Vec<u8>, Option<&'static str>, Arc<Scan>) {
        let scan = scan(max_body_bytes);
        let body = PrescannedBody::scanning(frames(list), scan.clone());
        let (read, error) = frames_read(body).await;
        (read.concat(), error, scan)
    }

    #[tokio::test]
    async fn a_body_of_one_frame_is_kept_as_it_came_not_copied() {
        static BODY: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#;
        let body = PrescannedBody::scanning(frames(&[Some(BODY)]), scan(1 << 20));
        let (read, error) = frames_read(body).await;
        assert_eq!((read.len(), error), (1, None));
        assert_eq!(read[0].as_ptr(), BODY.as_ptr());
    }

    #[tokio::test]
    async fn frames_are_held_back_and_joined_in_order_and_an_empty_body_is_empty() {
        let mut body = PrescannedBody::scanning(
            frames(&[Some(b"{\"a\":"), Some(b""), Some(b"1}")]),
            scan(64),
        );
        let first = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await;
        let first = first.expect("a frame").expect("data").into_data().unwrap();
        assert_eq!(
            first,
            Bytes::from_static(b"{\"a\":1}"),
            "rmcp sees the whole body at once"
        );
        assert!(body.is_end_stream());
        let (empty, error, _) = read_through(&[], 64).await;
        assert_eq!((empty, error), (Vec::new(), None));
    }

    #[tokio::test]
    async fn past_the_limit_the_body_goes_on_unscanned_and_whole() {
        for limit in [0, 3, 4, 5] {
            let (read, error, scan) =
                read_through(&[Some(b"abcd"), Some(b"ef"), Some(b"gh")], limit).await;
            assert_eq!((read, error), (b"abcdefgh".to_vec(), None), "limit {limit}");
            assert!(matches!(*scan.lock(), Finding::Nothing));
        }
        let (fits, _, scan) = read_through(&[Some(b"abcd"), Some(b"ef")], 6).await;
        assert_eq!(fits, b"abcdef".to_vec());
        assert!(matches!(*scan.lock(), Finding::Unscanned(..)));
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
            let expected: Vec<u8> = read
                .iter()
                .flat_map(|data| data.unwrap().to_vec())
                .collect();
            let (got, error, scan) = read_through(&list, 64).await;
            assert_eq!((got, error), (expected, Some("connection reset")));
            assert!(matches!(*scan.lock(), Finding::Nothing));
        }
    }

    /// Over the key limit: more colons than `Limits::max_keys` (64), so the scan runs first.
    fn too_many_keys() -> &'static [u8] {
        let keys: Vec<String> = (0..65).map(|i| format!("\"k{i}\":{{}}")).collect();
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"t","inputResponses":{{{}}}}}}}"#,
            keys.join(",")
        );
        Box::leak(body.into_bytes().into_boxed_slice())
    }

    #[tokio::test]
    async fn a_refused_body_reaches_rmcp_as_the_stand_in() {
        let (read, error, scan) = read_through(&[Some(too_many_keys())], 1 << 20).await;
        assert_eq!((read, error), (UNDECODABLE.to_vec(), None));
        let refusal = scan.refusal().expect("refused");
        let refusal: serde_json::Value = serde_json::from_slice(&refusal).unwrap();
        assert_eq!(refusal["id"], 7);
        assert_eq!(refusal["error"]["code"], -32602);
    }

    /// Stands in for rmcp: reads the whole body, and answers with the bounds the round would
    /// find once it has (none before).
    struct ReadsBody;

    impl Service<Request<PrescannedBody<Frames>>> for ReadsBody {
        type Response = Response<Option<RawBounds>>;
        type Error = ();
        type Future = Pin<Box<dyn Future<Output = Result<Self::Response, ()>> + Send>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), ()>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: Request<PrescannedBody<Frames>>) -> Self::Future {
            Box::pin(async move {
                let scanned = request.extensions().get::<ScannedBody>().cloned();
                let before = scanned.as_ref().and_then(ScannedBody::bounds);
                let body = http_body_util::BodyExt::collect(request.into_body()).await;
                assert!(before.is_none() && body.is_ok());
                Ok(Response::new(
                    scanned.as_ref().and_then(ScannedBody::bounds),
                ))
            })
        }
    }

    /// A body rmcp reads first leaves what the pass counted for the round (in the request's
    /// extensions, where rmcp's handler finds it); a body scanned first, or not read to its end,
    /// leaves nothing, and the round walks its `inputResponses`.
    #[tokio::test]
    async fn a_body_rmcp_reads_first_leaves_its_bounds_for_the_round() {
        use tower_layer::Layer;

        static FINE: &[u8] = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","inputResponses":{"a":[{}]}}}"#;
        let cases: [(&[u8], Option<RawBounds>); 3] = [
            (
                FINE,
                Some(RawBounds {
                    openings: 5,
                    bytes: FINE.len(),
                }),
            ),
            (too_many_keys(), None),
            (br#"{"params":null}"#, None),
        ];
        for (body, expected) in cases {
            let mut service = PrescanLayer::new(Prescan::default()).layer(ReadsBody);
            let request = Request::post("/mcp")
                .header(header::CONTENT_TYPE, "application/json")
                .body(frames(&[Some(body)]))
                .unwrap();
            let response = service.call(request).await.unwrap();
            let Either::Left(bounds) = response.into_body() else {
                panic!("rmcp's own response")
            };
            assert_eq!(bounds, expected, "{}", String::from_utf8_lossy(body));
        }
    }

    /// rmcp's answer to what it read, as the pre-scan's response future passes it on.
    async fn answered(
        scan: Option<Arc<Scan>>,
        status: StatusCode,
    ) -> Response<Either<&'static str, Full<Bytes>>> {
        let response = Response::builder().status(status).body("rmcp").unwrap();
        let future = PrescanFuture {
            inner: std::future::ready(Ok::<_, ()>(response)),
            scan,
        };
        future.await.unwrap()
    }

    #[tokio::test]
    async fn only_rmcp_s_415_is_replaced_and_only_by_a_refusal() {
        // The stand-in's 415 becomes the refusal, as HTTP 200.
        let (_, _, refused) = read_through(&[Some(too_many_keys())], 1 << 20).await;
        let response = answered(Some(refused), StatusCode::UNSUPPORTED_MEDIA_TYPE).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert!(matches!(response.body(), Either::Right(_)));
        // A body rmcp read first and could not decode is scanned then: a `_meta` that is not
        // an object is refused under the request's id.
        static WRONG_META: &[u8] =
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","_meta":1}}"#;
        let (_, _, unscanned) = read_through(&[Some(WRONG_META)], 1 << 20).await;
        let response = answered(Some(unscanned), StatusCode::UNSUPPORTED_MEDIA_TYPE).await;
        assert!(matches!(response.body(), Either::Right(_)));
        // Any other answer is rmcp's, and so is a 415 with nothing to refuse.
        let (_, _, refused) = read_through(&[Some(too_many_keys())], 1 << 20).await;
        let response = answered(Some(refused), StatusCode::FORBIDDEN).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        static FINE: &[u8] =
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t"}}"#;
        let (_, _, fine) = read_through(&[Some(FINE)], 1 << 20).await;
        let response = answered(Some(fine), StatusCode::UNSUPPORTED_MEDIA_TYPE).await;
        assert!(matches!(response.body(), Either::Left("rmcp")));
        let response = answered(None, StatusCode::UNSUPPORTED_MEDIA_TYPE).await;
        assert!(matches!(response.body(), Either::Left("rmcp")));
    }
}
