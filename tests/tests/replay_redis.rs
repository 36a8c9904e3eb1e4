//! `RedisReplayGuard` against a real `redis-server` started by each test: single use across two
//! `Runtime`s (two instances behind a load balancer), expiry, Redis stopped mid-test under both
//! policies, and reconnection after Redis restarts.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mrtr::replay::{IdempotencyKey, ReplayGuard};
use mrtr::replay_redis::{RedisGuardConfig, RedisReplayGuard, Unreachable};
use mrtr::testing::*;
use mrtr::{StepKey, ask, mrtr_tool};
use mrtr_tests::redis::RedisServer;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};
use serde_json::json;

#[derive(Debug, Clone, serde::Deserialize, mrtr::Elicit)]
struct Confirm {
    ok: bool,
}

/// A deploy with one question; counts its effect, shared by every instance.
#[derive(Clone, Default)]
struct Deploys {
    effects: Arc<AtomicUsize>,
}

#[tool_router]
impl Deploys {
    #[mrtr_tool]
    #[tool(description = "deploy after confirmation")]
    async fn deploy(&self, _step: StepKey) -> Result<CallToolResult, ErrorData> {
        let confirm = ask!(confirm: elicit::<Confirm>("Deploy?"));
        let ok = confirm.accepted().is_some_and(|c| c.ok);
        self.effects.fetch_add(1, Ordering::SeqCst);
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "deployed {ok}"
        ))]))
    }
}

fn guard(redis: &RedisServer, policy: Unreachable) -> Arc<RedisReplayGuard> {
    let config = RedisGuardConfig::new(redis.url())
        .key_prefix("test:spent:")
        .when_unreachable(policy)
        .timeout(Duration::from_millis(200));
    Arc::new(RedisReplayGuard::new(config).expect("a valid Redis URL"))
}

/// One instance of the service: its own runtime and its own Redis connection.
async fn instance(deploys: &Deploys, guard: Arc<RedisReplayGuard>) -> Session {
    let server = TestServer::new(
        deploys.clone(),
        Deploys::tool_router(),
        guarded_runtime("deploys", guard),
    );
    connect(server, ScriptedClient::new(Caps::FORM_ONLY), Era::Modern).await
}

fn answer() -> serde_json::Value {
    json!({ "confirm": { "action": "accept", "content": { "ok": true } } })
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}

async fn raw(redis: &RedisServer) -> ::redis::aio::MultiplexedConnection {
    ::redis::Client::open(redis.url())
        .expect("url")
        .get_multiplexed_async_connection()
        .await
        .expect("a raw connection to the test's Redis")
}

#[tokio::test]
async fn a_continuation_is_claimed_once_under_the_prefix_until_its_expiry() {
    let redis = RedisServer::start();
    let guard = guard(&redis, Unreachable::FailClosed);
    let key = IdempotencyKey([7; 16]);
    let expires_at = now() + 300;
    assert_eq!(guard.claim(key, expires_at).await, Ok(true));
    assert_eq!(guard.claim(key, expires_at).await, Ok(false));
    assert_eq!(
        guard.claim(IdempotencyKey([8; 16]), expires_at).await,
        Ok(true)
    );
    let mut raw = raw(&redis).await;
    let expiry: i64 = ::redis::cmd("EXPIRETIME")
        .arg(format!("test:spent:{}", "07".repeat(16)))
        .query_async(&mut raw)
        .await
        .expect("EXPIRETIME");
    assert_eq!(
        expiry, expires_at as i64,
        "the key lives exactly as long as the token"
    );
}

#[tokio::test]
async fn a_duplicated_final_retry_on_another_instance_runs_its_effect_once() {
    let redis = RedisServer::start();
    let deploys = Deploys::default();
    let a = instance(&deploys, guard(&redis, Unreachable::FailClosed)).await;
    let b = instance(&deploys, guard(&redis, Unreachable::FailClosed)).await;
    let first = expect_input_required(a.round("deploy", json!({}), None, None).await);
    let state = first.request_state.clone();
    let done = expect_complete(
        b.round("deploy", json!({}), Some(answer()), state.clone())
            .await,
    );
    assert_eq!(text_of(&done), "deployed true");
    for duplicate_on in [&a, &b] {
        let (code, message) = expect_rpc_error(
            duplicate_on
                .round("deploy", json!({}), Some(answer()), state.clone())
                .await,
        );
        assert_eq!(code, -32602);
        assert_eq!(
            message,
            "Invalid params: requestState is invalid, expired or does not belong to this request",
            "a spent continuation is refused like any other invalid one"
        );
    }
    assert_eq!(
        deploys.effects.load(Ordering::SeqCst),
        1,
        "the effect ran once"
    );
    a.close().await;
    b.close().await;
}

#[tokio::test]
async fn a_claim_is_forgotten_once_the_token_has_expired() {
    let redis = RedisServer::start();
    let guard = guard(&redis, Unreachable::FailClosed);
    let key = IdempotencyKey([9; 16]);
    let expires_at = now() + 1;
    assert_eq!(guard.claim(key, expires_at).await, Ok(true));
    assert_eq!(guard.claim(key, expires_at).await, Ok(false));
    while now() <= expires_at {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut raw = raw(&redis).await;
    let exists: u32 = ::redis::cmd("EXISTS")
        .arg(format!("test:spent:{key}"))
        .query_async(&mut raw)
        .await
        .expect("EXISTS");
    assert_eq!(exists, 0, "Redis dropped the key at the token's expiry");
}

#[tokio::test]
async fn with_redis_stopped_fail_closed_refuses_the_round_runs_nothing_and_does_not_spend_it() {
    let mut redis = RedisServer::start();
    let deploys = Deploys::default();
    let session = instance(&deploys, guard(&redis, Unreachable::FailClosed)).await;
    let first = expect_input_required(session.round("deploy", json!({}), None, None).await);
    redis.stop();
    let (code, message) = expect_rpc_error(
        session
            .round(
                "deploy",
                json!({}),
                Some(answer()),
                first.request_state.clone(),
            )
            .await,
    );
    assert_eq!(code, -32603);
    assert!(message.contains("replay store unavailable"), "{message}");
    assert!(message.contains("nothing was run"), "{message}");
    assert_eq!(deploys.effects.load(Ordering::SeqCst), 0, "nothing ran");
    redis.restart();
    let done = retry_until_redis_answers(|| {
        session.round(
            "deploy",
            json!({}),
            Some(answer()),
            first.request_state.clone(),
        )
    })
    .await;
    assert_eq!(
        text_of(&done),
        "deployed true",
        "the refused token was not spent"
    );
    assert_eq!(deploys.effects.load(Ordering::SeqCst), 1);
    session.close().await;
}

#[tokio::test]
async fn with_redis_stopped_fail_open_runs_the_round_unguarded() {
    let mut redis = RedisServer::start();
    let deploys = Deploys::default();
    let session = instance(&deploys, guard(&redis, Unreachable::FailOpen)).await;
    let first = expect_input_required(session.round("deploy", json!({}), None, None).await);
    redis.stop();
    let done = expect_complete(
        session
            .round(
                "deploy",
                json!({}),
                Some(answer()),
                first.request_state.clone(),
            )
            .await,
    );
    assert_eq!(text_of(&done), "deployed true");
    assert_eq!(deploys.effects.load(Ordering::SeqCst), 1);
    session.close().await;
}

#[tokio::test]
async fn the_guard_reconnects_after_redis_restarts() {
    let mut redis = RedisServer::start();
    let guard = guard(&redis, Unreachable::FailClosed);
    let expires_at = now() + 300;
    assert_eq!(
        guard.claim(IdempotencyKey([1; 16]), expires_at).await,
        Ok(true)
    );
    redis.restart();
    let mut claimed = None;
    for _ in 0..50 {
        match guard.claim(IdempotencyKey([2; 16]), expires_at).await {
            Ok(first) => {
                claimed = Some(first);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    assert_eq!(
        claimed,
        Some(true),
        "claims work again on the restarted Redis"
    );
    assert_eq!(
        guard.claim(IdempotencyKey([2; 16]), expires_at).await,
        Ok(false)
    );
}

#[tokio::test]
async fn a_redis_that_never_answers_fails_the_claim_within_the_timeout() {
    // Accepts connections and reads nothing back: a hung or partitioned Redis.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("redis://{}/", silent.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((stream, _)) = silent.accept().await {
            open.push(stream);
        }
    });
    let guard =
        RedisReplayGuard::new(RedisGuardConfig::new(url).timeout(Duration::from_millis(100)))
            .unwrap();
    let claim = tokio::time::timeout(
        Duration::from_secs(10),
        guard.claim(IdempotencyKey([3; 16]), now() + 300),
    )
    .await
    .expect("the claim is bounded by the guard's timeout, not left hanging");
    let error = claim.expect_err("a claim Redis never answered fails closed");
    assert!(error.0.contains("Redis at"), "{error}");
    held.abort();
}

/// The first claims after a restart may still meet the broken connection; the manager
/// reconnects in the background.
async fn retry_until_redis_answers<F, Fut>(mut round: F) -> CallToolResult
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<
            Output = Result<rmcp::model::CallToolResponse, rmcp::service::ServiceError>,
        >,
{
    for _ in 0..50 {
        match round().await {
            Err(rmcp::service::ServiceError::McpError(error)) if error.code.0 == -32603 => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => return expect_complete(other),
        }
    }
    panic!("Redis did not answer claims within 5 s of its restart");
}
