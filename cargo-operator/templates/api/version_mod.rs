//! `{{api_group}}/{{version}}`: one module per kind.

// +operator:scaffold:kinds
