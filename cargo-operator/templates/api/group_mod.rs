//! The `{{api_group}}` API group.

// +operator:scaffold:versions
