//! Logging as operators on kube-rs need it: `RUST_LOG` filters (default: `info`, kube's own
//! chatter at `warn`), text for people or one JSON object per line for log pipelines.
//!
//! More `tracing` layers go next to the log lines with [`init_with`]: an OpenTelemetry
//! exporter (`tracing_opentelemetry::layer().with_tracer(..)`), a Sentry or Loki layer,
//! anything that implements `tracing_subscriber::Layer`. They see what `RUST_LOG` lets
//! through, as the log lines do.
//!
//! ```no_run
//! use operator_runtime::flags::LogFormat;
//! use tracing_subscriber::Layer as _;
//! # fn exporter() -> impl tracing_subscriber::Layer<tracing_subscriber::Registry> + Send + Sync {
//! #     tracing_subscriber::layer::Identity::new()
//! # }
//! // Instead of `logging::init(format)`:
//! operator_runtime::logging::init_with(LogFormat::Text, vec![exporter().boxed()]);
//! ```

use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::flags::LogFormat;

/// A `tracing` layer for [`init_with`] (`layer.boxed()`).
pub type BoxedLayer =
    Box<dyn tracing_subscriber::Layer<tracing_subscriber::Registry> + Send + Sync + 'static>;

/// Installs the global subscriber. Call once, first thing in `main`.
pub fn init(format: LogFormat) {
    init_with(format, Vec::new());
}

/// [`init`], with `layers` next to the log lines (an OpenTelemetry exporter, for
/// instance), filtered by `RUST_LOG` as they are.
pub fn init_with(format: LogFormat, layers: Vec<BoxedLayer>) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    subscriber(format, layers, filter).init();
}

/// What is logged when `RUST_LOG` is not set.
const DEFAULT_FILTER: &str = "info,kube=warn";

/// The subscriber [`init_with`] installs.
fn subscriber(
    format: LogFormat,
    mut layers: Vec<BoxedLayer>,
    filter: tracing_subscriber::EnvFilter,
) -> impl tracing::Subscriber + Send + Sync + 'static {
    let lines: BoxedLayer = match format {
        LogFormat::Text => tracing_subscriber::fmt::layer().boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .boxed(),
    };
    layers.push(lines);
    tracing_subscriber::registry().with(layers.with_filter(filter))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counting(Arc<AtomicUsize>);

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Counting {
        fn on_event(
            &self,
            _event: &tracing::Event<'_>,
            _ctx: tracing_subscriber::layer::Context<'_, S>,
        ) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A layer given to `init_with` sees the events `RUST_LOG` lets through (by default:
    /// info and above, kube's from warn).
    #[test]
    fn extra_layers_see_the_filtered_events() {
        let seen = Arc::new(AtomicUsize::new(0));
        let subscriber = subscriber(
            LogFormat::Json,
            vec![Counting(seen.clone()).boxed()],
            tracing_subscriber::EnvFilter::new(DEFAULT_FILTER),
        );
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!("reconciled");
            tracing::debug!("filtered out by default");
            tracing::info!(target: "kube::runtime", "kube chatter below warn");
            tracing::warn!(target: "kube::runtime", "kube trouble");
        });
        assert_eq!(seen.load(Ordering::Relaxed), 2);
    }
}
