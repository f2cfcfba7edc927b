//! The short-descriptions case: with `--max-desc-len 40` (controller-gen's
//! `crd:maxDescLen=40`) descriptions are cut at a sentence end, at a space, in the middle
//! of a long word, or left alone when short enough.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};

/// NoticeSpec is what the notice says. The rest of this sentence runs well past the limit.
#[derive(Schema)]
pub struct NoticeSpec {
    /// Short fits.
    pub short: String,

    /// Sentence ends early. Then this second sentence goes on past the limit of the case.
    pub sentence: Option<String>,

    /// Words only, no sentence end anywhere within the first forty bytes of this text
    pub words: Option<String>,

    /// Supercalifragilisticexpialidociousandthensomemorelettersbeyondthelimit
    pub word: Option<String>,

    /// Lines are kept apart.
    /// A second line, and a third
    /// line that goes past the limit.
    pub lines: Option<String>,

    /// Target names a place; its own description is long enough to be cut as well.
    pub target: Option<Target>,
}

/// Target is a place described at some length, longer than the limit.
#[derive(Schema)]
pub struct Target {
    /// Host of the place, which is described at a length that is cut.
    pub host: String,
}

/// NoticeStatus carries conditions, whose upstream descriptions are cut too.
#[derive(Schema)]
pub struct NoticeStatus {
    /// Conditions of the notice.
    #[schema(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Option<Vec<Condition>>,
}

/// Notice exercises maxDescLen.
#[derive(CustomResource)]
#[resource(group = "short.parity.example.com", version = "v1", kind = "Notice")]
#[subresource(status)]
pub struct Notice {
    pub metadata: ObjectMeta,
    pub spec: NoticeSpec,
    pub status: Option<NoticeStatus>,
}
