//! Single use on Streamable HTTP: spend a round's continuation when its response leaves, not
//! when it is computed (feature `http`).
//!
//! Between the two, a response waits on the instance's tasks and its connection: under load,
//! long enough for a SIGKILL to fall there often. A continuation spent by a response that then
//! dies with its instance cannot be retried, and its dialogue is lost. Behind this layer the
//! round's lease is only spent once the connection has taken the whole response body (a JSON
//! response, or the SSE stream that carries it, to its end, which Streamable HTTP servers close
//! after the response); killed before that, the instance leaves the lease to run out and the
//! client's retry takes the round over (see [`crate::replay`]). A stream that never ends is
//! never spent by the layer: its lease runs out like a crashed round's.
//! Without the layer (stdio, or an HTTP stack that does not apply it) a continuation is spent
//! as soon as its round has its response.

use std::pin::Pin;
use std::task::{Context, Poll};

use http::{Request, Response};
use http_body::{Body, Frame, SizeHint};

use crate::lease::Delivery;

/// Apply it around rmcp's `StreamableHttpService` (outside [`crate::prescan::PrescanLayer`] or
/// inside it, either way):
///
/// ```ignore
/// let service = DeliveryLayer.layer(PrescanLayer::new(prescan).layer(service));
/// let router = axum::Router::new().nest_service("/mcp", service);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct DeliveryLayer;

impl<S> tower_layer::Layer<S> for DeliveryLayer {
    type Service = DeliveryService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        DeliveryService { inner }
    }
}

/// The service [`DeliveryLayer`] builds: puts a [`Delivery`] in each request's extensions
/// (rmcp hands them to the handler, where the round leaves its lease) and watches the
/// response body for it.
#[derive(Clone, Debug)]
pub struct DeliveryService<S> {
    inner: S,
}

impl<S, B, RB> tower_service::Service<Request<B>> for DeliveryService<S>
where
    S: tower_service::Service<Request<B>, Response = Response<RB>>,
    S::Future: Send + 'static,
{
    type Response = Response<DeliveredBody<RB>>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let delivery = Delivery::default();
        request.extensions_mut().insert(delivery.clone());
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await?;
            Ok(response.map(|body| DeliveredBody { body, delivery }))
        })
    }
}

/// A response body that spends its round's lease once the connection has taken all of it. A
/// body dropped before its end (the client went away) leaves the lease to run out.
pub struct DeliveredBody<B> {
    body: B,
    delivery: Delivery,
}

impl<B: Body + Unpin> Body for DeliveredBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = self.get_mut();
        let frame = Pin::new(&mut this.body).poll_frame(cx);
        // Once the body has ended, the connection holds all of it: the response and, for an
        // SSE stream, its end (a client reading a stream cut after the response's event may
        // drop the event with the stream). The lease was in the delivery before the response
        // was written to the body.
        let ended = match &frame {
            Poll::Ready(None) => true,
            Poll::Ready(Some(_)) => this.body.is_end_stream(),
            Poll::Pending => false,
        };
        if ended {
            this.delivery.delivered();
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl<B> std::fmt::Debug for DeliveredBody<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeliveredBody").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::future::poll_fn;
    use std::sync::Arc;

    use bytes::Bytes;
    use futures::executor::block_on;
    use http_body_util::{Full, StreamBody};

    use super::*;
    use crate::lease::{Lease, scope, spend_held};
    use crate::replay::{Claim, IdempotencyKey, InMemoryReplayGuard};

    const KEY: IdempotencyKey = IdempotencyKey([4; 16]);

    /// A round that answered behind the layer: its lease waits in the delivery.
    fn answered(guard: &Arc<InMemoryReplayGuard>) -> Delivery {
        let delivery = Delivery::default();
        assert_eq!(guard.claim_now(&KEY), Claim::Taken);
        block_on(scope(async {
            Lease::new(guard.clone(), KEY, u64::MAX).hold(Some(delivery.clone()));
            spend_held();
        }));
        delivery
    }

    fn next_frame<B: Body + Unpin>(body: &mut B) -> Option<Result<Frame<B::Data>, B::Error>> {
        block_on(poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx)))
    }

    #[test]
    fn a_json_response_is_spent_when_the_connection_takes_it() {
        let guard = Arc::new(InMemoryReplayGuard::new());
        let mut body = DeliveredBody {
            body: Full::new(Bytes::from_static(b"{}")),
            delivery: answered(&guard),
        };
        assert_eq!(guard.claim_now(&KEY), Claim::InFlight);
        assert!(next_frame(&mut body).is_some_and(|frame| frame.is_ok()));
        assert_eq!(guard.claim_now(&KEY), Claim::Spent);
    }

    #[test]
    fn a_stream_is_spent_at_its_end_not_at_its_first_event() {
        let guard = Arc::new(InMemoryReplayGuard::new());
        let event = Frame::data(Bytes::from_static(b"data: {}\n\n"));
        let mut body = DeliveredBody {
            body: StreamBody::new(futures::stream::iter([Ok::<_, Infallible>(event)])),
            delivery: answered(&guard),
        };
        assert!(next_frame(&mut body).is_some());
        assert_eq!(
            guard.claim_now(&KEY),
            Claim::InFlight,
            "the stream has not ended"
        );
        assert!(next_frame(&mut body).is_none());
        assert_eq!(guard.claim_now(&KEY), Claim::Spent);
    }

    #[test]
    fn a_response_that_never_leaves_leaves_the_lease_to_run_out() {
        let guard = Arc::new(InMemoryReplayGuard::new());
        drop(DeliveredBody {
            body: Full::new(Bytes::from_static(b"{}")),
            delivery: answered(&guard),
        });
        assert_eq!(
            guard.claim_now(&KEY),
            Claim::InFlight,
            "not spent: once the lease runs out, a retry takes the round over"
        );
    }
}
