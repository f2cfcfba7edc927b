//! The enums case: Rust enums with data, in each of serde's representations, become the
//! structural schemas a Go API spells with optional fields, property counts and CEL rules
//! (the Go side of this case writes those by hand).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// GitSource is a repository.
#[derive(Schema)]
pub struct GitSource {
    /// URL of the repository.
    #[validation(min_length = 1)]
    pub url: String,
    /// Revision to check out.
    pub revision: Option<String>,
}

/// Source says where the content comes from: exactly one of git, image or inline.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// Git fetches a repository.
    Git(GitSource),
    /// Image pulls an image by reference.
    Image(String),
    /// InlineText is written out in full.
    #[serde(rename_all = "UPPERCASE")]
    InlineText {
        /// Text of the content.
        text: String,
    },
}

/// Trigger starts a run: on a schedule, on a webhook, or by hand.
#[derive(Schema)]
#[serde(tag = "kind", rename_all_fields = "camelCase")]
pub enum Trigger {
    /// Runs on a cron schedule.
    Schedule {
        /// Cron expression.
        cron: String,
        /// Time zone name.
        time_zone: Option<String>,
    },
    /// Runs when the webhook is called.
    Webhook(WebhookTrigger),
    /// Runs only by hand.
    Manual,
}

/// WebhookTrigger is called over HTTP.
#[derive(Schema)]
pub struct WebhookTrigger {
    /// Path the webhook listens on.
    pub path: String,
}

/// Retry is how failures are retried.
#[derive(Schema)]
#[serde(tag = "policy", content = "params")]
pub enum Retry {
    /// Never retries.
    Never,
    /// Backs off exponentially.
    Backoff {
        /// Limit of attempts.
        #[validation(minimum = 1)]
        limit: i32,
    },
}

/// Target is a pod or a service, told apart by their fields.
#[derive(Schema)]
#[serde(untagged)]
pub enum Target {
    /// A pod by name.
    Pod {
        /// Pod name.
        pod: String,
    },
    /// A service by name and port.
    Service {
        /// Service name.
        service: String,
        /// Port of the service.
        port: Option<i32>,
    },
}

/// PipelineSpec uses an enum of each representation.
#[derive(Schema)]
pub struct PipelineSpec {
    /// Source of the content.
    pub source: Source,
    /// Trigger of the runs.
    pub trigger: Trigger,
    /// Retry of failed runs.
    pub retry: Option<Retry>,
    /// Target of the runs.
    pub target: Option<Target>,
}

/// Pipeline exercises data-carrying enums.
#[derive(CustomResource)]
#[resource(group = "enums.parity.example.com", version = "v1", kind = "Pipeline")]
pub struct Pipeline {
    pub metadata: ObjectMeta,
    pub spec: PipelineSpec,
}
