//! The operator's controllers. `cargo operator create api` adds each new kind's module and
//! its entry in [`ALL`].

use futures::future::BoxFuture;
use kube::Client;
use operator_runtime::Runtime;

pub mod backup;
pub mod guestbook;
// +operator:scaffold:controller-modules

/// Starts one controller: called when this instance may reconcile (it leads, or runs without
/// leader election), with the namespace to watch (`None`: every namespace); the future runs
/// until [`Runtime::stopped`].
pub type Start = fn(Client, Runtime, Option<String>) -> BoxFuture<'static, ()>;

/// Every controller the manager runs.
pub const ALL: &[Start] = &[
    guestbook::start,
    backup::start,
    // +operator:scaffold:controllers
];

/// Runs every controller in [`ALL`] until the runtime stops, each watching `namespace` (every
/// namespace when `None`). Each takes its readiness handle before the first one is polled, so
/// `/readyz` waits for all of them.
pub async fn run_all(client: Client, runtime: Runtime, namespace: Option<String>) {
    let running: Vec<_> = ALL
        .iter()
        .map(|start| start(client.clone(), runtime.clone(), namespace.clone()))
        .collect();
    futures::future::join_all(running).await;
}
