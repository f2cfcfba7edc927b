//! The webhooks of `{{version}}` kinds: one module per kind.

// +operator:scaffold:webhook-kinds
