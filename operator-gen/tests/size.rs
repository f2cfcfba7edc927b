//! Size budgets on a CronJob-sized kind: the kubebuilder tutorial's CronJob embeds a whole
//! `JobTemplateSpec`, whose descriptions push the CRD past what `kubectl apply` can apply.

use std::path::Path;

use operator_gen::compat::Severity;

const CRONJOB: &str = r#"
use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// CronJob runs a job on a schedule.
#[derive(CustomResource)]
#[resource(group = "batch.tutorial.kubebuilder.io", version = "v1")]
pub struct CronJob {
    pub metadata: ObjectMeta,
    pub spec: CronJobSpec,
}

/// CronJobSpec is the desired state of a CronJob.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// The schedule in Cron format.
    #[validation(min_length = 0)]
    pub schedule: String,
    /// The job that will be created when executing a CronJob.
    pub job_template: JobTemplateSpec,
}
"#;

fn size_of(options: &operator_gen::Options) -> Option<operator_gen::size::Oversize> {
    let root = Path::new("/cronjob/src");
    let generated = operator_gen::generate_from_texts(
        root,
        vec![(root.join("lib.rs"), CRONJOB.to_string())],
        options,
    )
    .unwrap();
    let crd = serde_json::to_value(&generated.crds[0]).unwrap();
    operator_gen::size::check(&crd)
}

#[test]
fn the_cronjob_sized_kind_warns_with_its_biggest_part_and_the_fixes() {
    let big = size_of(&operator_gen::Options::default()).expect("over the budget");
    assert_eq!(big.severity, Severity::Warning);
    assert!(
        big.bytes > operator_gen::size::CLIENT_SIDE_APPLY,
        "{}",
        big.bytes
    );
    let text = big.to_string();
    eprintln!("{text}");
    for part in [
        "warning: config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml: cronjobs.batch.tutorial.kubebuilder.io is ",
        "`kubectl apply` (client-side) cannot apply it (\"metadata.annotations: Too long\")",
        "\n  .spec.jobTemplate: ",
        "v1 .spec.jobTemplate.spec.template.spec.containers[*]: ",
        "max-desc-len = 0",
        "#[schema(skip_descriptions)] on the field at .spec.jobTemplate ",
    ] {
        assert!(text.contains(part), "{part:?} not in:\n{text}");
    }
    // Descriptions are most of it.
    assert!(big.descriptions * 2 > big.bytes, "{text}");
}

#[test]
fn without_descriptions_the_cronjob_fits() {
    let options = operator_gen::Options {
        max_desc_len: Some(0),
        ..Default::default()
    };
    assert_eq!(size_of(&options), None);
}
