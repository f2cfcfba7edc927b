//! Who may read `/metrics`: the bearer token is authenticated with a TokenReview
//! (authentication.k8s.io/v1) and the user it names is authorized with a SubjectAccessReview
//! (authorization.k8s.io/v1) for the request's verb on the non-resource URL `/metrics`, the
//! way controller-runtime's `filters.WithAuthenticationAndAuthorization` (kubebuilder v4's
//! default) does:
//!
//! - no `Authorization: Bearer` token, or one the API server does not authenticate: 401;
//! - authenticated, and the SubjectAccessReview does not allow it: 403 naming the user;
//! - allowed: the metrics;
//! - a review that cannot be made (API server down, the manager not permitted to create
//!   reviews): 500 with the reason, nothing cached, the next scrape asks again.
//!
//! Decisions are cached by a SHA-256 digest of the token with the verb and path (the token
//! itself is not kept): an allowed caller for [`AuthOptions::allow_ttl`], a refused one
//! (unauthenticated or denied) for [`AuthOptions::deny_ttl`], at most
//! [`AuthOptions::cache_capacity`] entries. A Prometheus scraping every 15 s then costs two
//! API calls every two minutes rather than two per scrape. Revoking a token or a binding
//! takes effect once its entry expires.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use http::{HeaderMap, StatusCode, header::AUTHORIZATION};
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec, UserInfo};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};
use tracing::{debug, warn};

/// How long decisions are cached, how many, and how long a review may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthOptions {
    /// An allowed token is not reviewed again for this long (2 minutes).
    pub allow_ttl: Duration,
    /// A token refused (not authenticated, or not authorized) is refused without asking
    /// again for this long (30 seconds).
    pub deny_ttl: Duration,
    /// At most this many decisions are kept (1024); the one closest to expiry goes first.
    pub cache_capacity: usize,
    /// A TokenReview or SubjectAccessReview that takes longer fails the request (10 s).
    pub review_timeout: Duration,
}

impl Default for AuthOptions {
    fn default() -> Self {
        Self {
            allow_ttl: Duration::from_secs(120),
            deny_ttl: Duration::from_secs(30),
            cache_capacity: 1024,
            review_timeout: Duration::from_secs(10),
        }
    }
}

/// The two questions asked of the API server. [`ApiReviews`] asks the real one; tests
/// answer themselves.
pub trait Reviews: Send + Sync + 'static {
    /// The user `token` authenticates as, `Ok(None)` when the API server does not
    /// authenticate it.
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Option<User>, String>>;
    /// Whether `user` may `verb` the non-resource URL `path`, with the reason given.
    fn authorize<'a>(
        &'a self,
        user: &'a User,
        verb: &'a str,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Access, String>>;
}

/// Who a token belongs to, as the TokenReview says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct User {
    /// The user name.
    pub name: String,
    /// The user's UID, when the authenticator gives one.
    pub uid: Option<String>,
    /// The groups the user is in.
    pub groups: Vec<String>,
    /// What else the authenticator says of the user.
    pub extra: BTreeMap<String, Vec<String>>,
}

impl From<UserInfo> for User {
    fn from(info: UserInfo) -> Self {
        Self {
            name: info.username.unwrap_or_default(),
            uid: info.uid.filter(|uid| !uid.is_empty()),
            groups: info.groups.unwrap_or_default(),
            extra: info.extra.unwrap_or_default(),
        }
    }
}

/// A SubjectAccessReview's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// Whether the user may `get` the `/metrics` path.
    pub allowed: bool,
    /// Why, when the authorizer says.
    pub reason: String,
}

/// The reviews made by the manager's own client: it needs `create` on `tokenreviews`
/// (authentication.k8s.io) and `subjectaccessreviews` (authorization.k8s.io), the rules of
/// `config/rbac/metrics_auth_role.yaml`, and nothing else.
#[derive(Clone)]
pub struct ApiReviews {
    client: kube::Client,
    timeout: Duration,
}

impl ApiReviews {
    /// Reviews made with `client`, each given up after `timeout`.
    pub fn new(client: kube::Client, timeout: Duration) -> Self {
        Self { client, timeout }
    }
}

impl fmt::Debug for ApiReviews {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiReviews")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl ApiReviews {
    async fn create<K>(&self, what: &str, object: &K) -> Result<K, String>
    where
        K: kube::Resource<Scope = k8s_openapi::ClusterResourceScope>
            + Clone
            + fmt::Debug
            + serde::Serialize
            + serde::de::DeserializeOwned,
        K::DynamicType: Default,
    {
        let api: Api<K> = Api::all(self.client.clone());
        match tokio::time::timeout(self.timeout, api.create(&PostParams::default(), object)).await {
            Ok(Ok(created)) => Ok(created),
            Ok(Err(e)) => Err(format!("creating a {what}: {e}")),
            Err(_) => Err(format!(
                "creating a {what}: no answer within {:?}",
                self.timeout
            )),
        }
    }
}

impl Reviews for ApiReviews {
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Option<User>, String>> {
        Box::pin(async move {
            let review = TokenReview {
                spec: TokenReviewSpec {
                    token: token.to_string(),
                    // The API server's own audiences, as a ServiceAccount token has.
                    audiences: None,
                },
                ..Default::default()
            };
            let status = self
                .create("TokenReview", &review)
                .await?
                .status
                .unwrap_or_default();
            if status.authenticated != Some(true) {
                if let Some(error) = status.error.filter(|e| !e.is_empty()) {
                    debug!(%error, "metrics: token not authenticated");
                }
                return Ok(None);
            }
            Ok(Some(status.user.unwrap_or_default().into()))
        })
    }

    fn authorize<'a>(
        &'a self,
        user: &'a User,
        verb: &'a str,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Access, String>> {
        Box::pin(async move {
            let review = SubjectAccessReview {
                spec: SubjectAccessReviewSpec {
                    user: Some(user.name.clone()),
                    uid: user.uid.clone(),
                    groups: Some(user.groups.clone()).filter(|g| !g.is_empty()),
                    extra: Some(user.extra.clone()).filter(|e| !e.is_empty()),
                    non_resource_attributes: Some(NonResourceAttributes {
                        path: Some(path.to_string()),
                        verb: Some(verb.to_string()),
                    }),
                    resource_attributes: None,
                },
                ..Default::default()
            };
            let status = self
                .create("SubjectAccessReview", &review)
                .await?
                .status
                .unwrap_or_default();
            let mut reason = status.reason.unwrap_or_default();
            if let Some(error) = status.evaluation_error.filter(|e| !e.is_empty()) {
                reason = if reason.is_empty() {
                    error
                } else {
                    format!("{reason}; {error}")
                };
            }
            Ok(Access {
                allowed: status.allowed && status.denied != Some(true),
                reason,
            })
        })
    }
}

/// A cached decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// The token authenticates a user who may read the metrics.
    Allowed {
        /// The user's name.
        user: String,
    },
    /// The token authenticates a user who may not.
    Denied {
        /// The user's name.
        user: String,
        /// Why not, as the authorizer says.
        reason: String,
    },
    /// The API server does not know the token.
    Unauthenticated,
}

/// What one request gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The API server's decision (perhaps from the cache).
    Decided(Decision),
    /// No usable `Authorization: Bearer` header: refused without asking anyone.
    NoToken,
    /// A review failed; the reason is for the caller (and the log).
    Failed(String),
}

impl Verdict {
    /// The HTTP answer: the status and, unless allowed, a one-line body.
    pub fn status(&self) -> (StatusCode, String) {
        match self {
            Verdict::Decided(Decision::Allowed { .. }) => (StatusCode::OK, String::new()),
            Verdict::NoToken => (
                StatusCode::UNAUTHORIZED,
                "Unauthorized: send a bearer token (Authorization: Bearer <token>)".into(),
            ),
            Verdict::Decided(Decision::Unauthenticated) => (
                StatusCode::UNAUTHORIZED,
                "Unauthorized: the API server does not authenticate this token".into(),
            ),
            Verdict::Decided(Decision::Denied { user, reason }) => {
                let mut text = format!("Forbidden: user {user:?} may not get /metrics");
                if !reason.is_empty() {
                    text.push_str(": ");
                    text.push_str(reason);
                }
                (StatusCode::FORBIDDEN, text)
            }
            Verdict::Failed(reason) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("cannot check the caller: {reason}"),
            ),
        }
    }
}

/// The cache's key: SHA-256 over the token, verb and path (NUL-separated).
type Key = [u8; 32];

fn key(token: &str, verb: &str, path: &str) -> Key {
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    for part in [token, verb, path] {
        context.update(part.as_bytes());
        context.update(&[0]);
    }
    let mut key = [0; 32];
    key.copy_from_slice(context.finish().as_ref());
    key
}

/// Decisions until they expire, at most `capacity` of them.
#[derive(Debug)]
pub(crate) struct DecisionCache {
    entries: HashMap<Key, (Decision, Instant)>,
    capacity: usize,
}

impl DecisionCache {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            entries: HashMap::new(),
            capacity,
        }
    }

    pub(crate) fn get(&mut self, key: &Key, now: Instant) -> Option<Decision> {
        match self.entries.get(key) {
            Some((decision, expires)) if *expires > now => Some(decision.clone()),
            Some(_) => {
                self.entries.remove(key);
                None
            }
            None => None,
        }
    }

    pub(crate) fn insert(&mut self, key: Key, decision: Decision, expires: Instant, now: Instant) {
        if self.capacity == 0 {
            return;
        }
        if !self.entries.contains_key(&key) && self.entries.len() >= self.capacity {
            self.entries.retain(|_, (_, until)| *until > now);
            if self.entries.len() >= self.capacity
                && let Some(soonest) = self
                    .entries
                    .iter()
                    .min_by_key(|(_, (_, until))| *until)
                    .map(|(key, _)| *key)
            {
                self.entries.remove(&soonest);
            }
        }
        self.entries.insert(key, (decision, expires));
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Authentication and authorization of the callers of `/metrics`, with the decisions
/// cached.
pub struct MetricsAuth {
    reviews: Arc<dyn Reviews>,
    options: AuthOptions,
    cache: Mutex<DecisionCache>,
}

impl fmt::Debug for MetricsAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MetricsAuth")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// The token of an `Authorization: Bearer <token>` header (the scheme in any case).
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

impl MetricsAuth {
    /// Authentication and authorization through `reviews`, cached as `options` say.
    pub fn new(reviews: Arc<dyn Reviews>, options: AuthOptions) -> Self {
        Self {
            reviews,
            cache: Mutex::new(DecisionCache::new(options.cache_capacity)),
            options,
        }
    }

    /// The decision for a request with these headers, for `verb` (the request's method in
    /// lower case, as the API server names verbs of non-resource URLs) on `path`.
    pub async fn check(&self, headers: &HeaderMap, verb: &str, path: &str) -> Verdict {
        let Some(token) = bearer_token(headers) else {
            return Verdict::NoToken;
        };
        let key = key(token, verb, path);
        if let Some(decision) = self.cache().get(&key, Instant::now()) {
            return Verdict::Decided(decision);
        }
        let decision = match self.decide(token, verb, path).await {
            Ok(decision) => decision,
            Err(reason) => {
                warn!(%reason, "metrics: cannot check a caller");
                return Verdict::Failed(reason);
            }
        };
        let ttl = match decision {
            Decision::Allowed { .. } => self.options.allow_ttl,
            _ => self.options.deny_ttl,
        };
        let now = Instant::now();
        self.cache().insert(key, decision.clone(), now + ttl, now);
        Verdict::Decided(decision)
    }

    async fn decide(&self, token: &str, verb: &str, path: &str) -> Result<Decision, String> {
        let Some(user) = self.reviews.authenticate(token).await? else {
            debug!("metrics: unauthenticated caller");
            return Ok(Decision::Unauthenticated);
        };
        let access = self.reviews.authorize(&user, verb, path).await?;
        if access.allowed {
            Ok(Decision::Allowed { user: user.name })
        } else {
            debug!(user = %user.name, reason = %access.reason, "metrics: caller not authorized");
            Ok(Decision::Denied {
                user: user.name,
                reason: access.reason,
            })
        }
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, DecisionCache> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[cfg(test)]
    pub(crate) fn cached(&self) -> usize {
        self.cache().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Tokens `good-*` authenticate as `system:serviceaccount:ns:<rest>`; `reader` may get
    /// /metrics, nobody else; `down` fails; calls are counted and the last review kept.
    #[derive(Default)]
    struct Fake {
        authentications: AtomicUsize,
        authorizations: AtomicUsize,
        last: Mutex<Option<(User, String, String)>>,
    }

    impl Reviews for Fake {
        fn authenticate<'a>(
            &'a self,
            token: &'a str,
        ) -> BoxFuture<'a, Result<Option<User>, String>> {
            Box::pin(async move {
                self.authentications.fetch_add(1, Ordering::SeqCst);
                if token == "down" {
                    return Err("connection refused".into());
                }
                Ok(token.strip_prefix("good-").map(|name| User {
                    name: format!("system:serviceaccount:ns:{name}"),
                    uid: Some(format!("uid-{name}")),
                    groups: vec!["system:serviceaccounts".into()],
                    extra: [("k".to_string(), vec!["v".to_string()])].into(),
                }))
            })
        }

        fn authorize<'a>(
            &'a self,
            user: &'a User,
            verb: &'a str,
            path: &'a str,
        ) -> BoxFuture<'a, Result<Access, String>> {
            Box::pin(async move {
                self.authorizations.fetch_add(1, Ordering::SeqCst);
                *self.last.lock().unwrap() = Some((user.clone(), verb.into(), path.into()));
                if user.name.ends_with(":broken") {
                    return Err("subjectaccessreviews is forbidden".into());
                }
                let allowed = user.name.ends_with(":reader") && verb == "get" && path == "/metrics";
                Ok(Access {
                    allowed,
                    reason: if allowed { "bound" } else { "no rule" }.into(),
                })
            })
        }
    }

    impl Fake {
        fn calls(&self) -> (usize, usize) {
            (
                self.authentications.load(Ordering::SeqCst),
                self.authorizations.load(Ordering::SeqCst),
            )
        }
    }

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, authorization.parse().unwrap());
        headers
    }

    fn auth(options: AuthOptions) -> (Arc<Fake>, MetricsAuth) {
        let fake = Arc::new(Fake::default());
        (fake.clone(), MetricsAuth::new(fake, options))
    }

    #[tokio::test]
    async fn no_bearer_token_is_401_without_asking_the_api_server() {
        let (fake, auth) = auth(AuthOptions::default());
        for headers in [
            HeaderMap::new(),
            headers("Basic dXNlcjpwYXNz"),
            headers("Bearer"),
            headers("Bearer    "),
        ] {
            let verdict = auth.check(&headers, "get", "/metrics").await;
            assert_eq!(verdict, Verdict::NoToken);
            assert_eq!(verdict.status().0, StatusCode::UNAUTHORIZED);
        }
        assert_eq!(fake.calls(), (0, 0));
    }

    #[tokio::test]
    async fn allowed_denied_and_unknown_tokens_get_200_403_and_401() {
        let (fake, auth) = auth(AuthOptions::default());
        let allowed = auth
            .check(&headers("Bearer good-reader"), "get", "/metrics")
            .await;
        assert_eq!(
            allowed,
            Verdict::Decided(Decision::Allowed {
                user: "system:serviceaccount:ns:reader".into()
            })
        );
        assert_eq!(allowed.status().0, StatusCode::OK);
        // The SubjectAccessReview carried everything the TokenReview said.
        let (user, verb, path) = fake.last.lock().unwrap().clone().unwrap();
        assert_eq!(user.uid.as_deref(), Some("uid-reader"));
        assert_eq!(user.groups, ["system:serviceaccounts"]);
        assert_eq!(user.extra["k"], ["v"]);
        assert_eq!((verb.as_str(), path.as_str()), ("get", "/metrics"));

        // The scheme is case-insensitive, as HTTP says.
        let denied = auth
            .check(&headers("bearer good-other"), "get", "/metrics")
            .await;
        let (status, text) = denied.status();
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert!(
            text.contains("system:serviceaccount:ns:other") && text.contains("no rule"),
            "{text}"
        );

        let unknown = auth
            .check(&headers("Bearer garbage"), "get", "/metrics")
            .await;
        assert_eq!(unknown, Verdict::Decided(Decision::Unauthenticated));
        assert_eq!(unknown.status().0, StatusCode::UNAUTHORIZED);
        // The unknown token was never sent to authorization.
        assert_eq!(fake.calls(), (3, 2));
    }

    #[tokio::test]
    async fn decisions_are_cached_per_token_verb_and_path() {
        let (fake, auth) = auth(AuthOptions::default());
        for _ in 0..5 {
            for token in ["good-reader", "good-other", "garbage"] {
                auth.check(&headers(&format!("Bearer {token}")), "get", "/metrics")
                    .await;
            }
        }
        assert_eq!(fake.calls(), (3, 2), "one review per token, then the cache");
        assert_eq!(auth.cached(), 3);
        // Another verb is another question.
        let post = auth
            .check(&headers("Bearer good-reader"), "post", "/metrics")
            .await;
        assert_eq!(post.status().0, StatusCode::FORBIDDEN);
        assert_eq!(fake.calls(), (4, 3));
    }

    #[tokio::test]
    async fn refusals_expire_sooner_than_permissions() {
        let (fake, auth) = auth(AuthOptions {
            allow_ttl: Duration::from_secs(600),
            deny_ttl: Duration::from_millis(30),
            ..AuthOptions::default()
        });
        let check = |token: &'static str| {
            let auth = &auth;
            async move {
                auth.check(&headers(&format!("Bearer {token}")), "get", "/metrics")
                    .await
            }
        };
        check("good-reader").await;
        check("good-other").await;
        check("garbage").await;
        assert_eq!(fake.calls(), (3, 2));
        tokio::time::sleep(Duration::from_millis(60)).await;
        check("good-reader").await;
        assert_eq!(fake.calls(), (3, 2), "the permission is still cached");
        check("good-other").await;
        check("garbage").await;
        assert_eq!(
            fake.calls(),
            (5, 3),
            "both refusals expired and were asked again"
        );
    }

    #[tokio::test]
    async fn a_failing_review_is_500_with_the_reason_and_is_not_cached() {
        let (fake, auth) = auth(AuthOptions::default());
        for round in 1..=2 {
            let verdict = auth.check(&headers("Bearer down"), "get", "/metrics").await;
            let (status, text) = verdict.status();
            assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
            assert!(text.contains("connection refused"), "{text}");
            let verdict = auth
                .check(&headers("Bearer good-broken"), "get", "/metrics")
                .await;
            let (status, text) = verdict.status();
            assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
            assert!(text.contains("subjectaccessreviews is forbidden"), "{text}");
            assert_eq!(fake.calls(), (2 * round, round));
        }
        assert_eq!(auth.cached(), 0);
    }

    #[test]
    fn the_cache_is_bounded_and_forgets_the_entry_closest_to_expiry_first() {
        let now = Instant::now();
        let at = |s: u64| now + Duration::from_secs(s);
        let mut cache = DecisionCache::new(2);
        let (a, b, c) = (
            key("a", "get", "/metrics"),
            key("b", "get", "/metrics"),
            key("c", "get", "/metrics"),
        );
        cache.insert(a, Decision::Unauthenticated, at(100), now);
        cache.insert(b, Decision::Unauthenticated, at(10), now);
        cache.insert(c, Decision::Unauthenticated, at(50), now);
        assert_eq!(cache.len(), 2);
        assert_eq!(
            cache.get(&b, now),
            None,
            "b expired soonest and was dropped"
        );
        assert!(cache.get(&a, now).is_some() && cache.get(&c, now).is_some());

        // Expired entries go first, and are never returned.
        assert_eq!(cache.get(&c, at(50)), None);
        assert_eq!(cache.len(), 1);
        cache.insert(b, Decision::Unauthenticated, at(200), at(60));
        cache.insert(c, Decision::Unauthenticated, at(300), at(150));
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get(&a, at(150)), None, "a had expired");
        assert!(cache.get(&b, at(150)).is_some());

        let mut off = DecisionCache::new(0);
        off.insert(a, Decision::Unauthenticated, at(100), now);
        assert_eq!(off.len(), 0);
    }

    #[test]
    fn keys_separate_tokens_verbs_and_paths() {
        assert_ne!(key("ab", "get", "/m"), key("a", "bget", "/m"));
        assert_ne!(key("a", "get", "/m"), key("a", "get", "/n"));
        assert_eq!(key("a", "get", "/m"), key("a", "get", "/m"));
    }
}
