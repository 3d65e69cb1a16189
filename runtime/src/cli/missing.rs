//! Flags of backends this binary was built without. Each exists, hidden, only to stop the
//! start with an error naming the flag, its variable, the missing feature and the build line
//! that adds it: a configuration that asks for a backend never runs silently without it.
//! `OTEL_EXPORTER_OTLP_ENDPOINT` on a build without `otel` is only warned about, since
//! platforms set `OTEL_*` for every process.

use std::ffi::OsStr;

use clap::ValueEnum;
use clap::builder::{EnumValueParser, PossibleValue, TypedValueParser};

use crate::server::ToolMode;

/// The hidden flags of the backends not compiled in.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct MissingFeatureArgs {
    #[cfg(not(any(feature = "postgres", feature = "sqlite")))]
    #[arg(
        long,
        env = "MCPGEN_AUDIT_DB",
        hide = true,
        hide_env_values = true,
        value_name = "URL"
    )]
    audit_db: Option<String>,
    #[cfg(not(any(feature = "postgres", feature = "sqlite")))]
    #[arg(long, env = "MCPGEN_AUDIT_DB_SPOOL", hide = true)]
    audit_db_spool: Option<String>,
    #[cfg(not(any(feature = "postgres", feature = "sqlite")))]
    #[arg(long, env = "MCPGEN_AUDIT_DB_UNAVAILABLE", hide = true)]
    audit_db_unavailable: Option<String>,
    #[cfg(not(feature = "redis"))]
    #[arg(
        long,
        env = "MCPGEN_RATE_LIMIT_REDIS",
        hide = true,
        hide_env_values = true,
        value_name = "URL"
    )]
    rate_limit_redis: Option<String>,
    #[cfg(not(feature = "redis"))]
    #[arg(long, env = "MCPGEN_RATE_LIMIT_REDIS_UNAVAILABLE", hide = true)]
    rate_limit_redis_unavailable: Option<String>,
    #[cfg(not(feature = "redis"))]
    #[arg(
        long,
        env = "MCPGEN_STATE_REDIS",
        hide = true,
        hide_env_values = true,
        value_name = "URL"
    )]
    state_redis: Option<String>,
    #[cfg(not(feature = "metrics"))]
    #[arg(long, env = "MCPGEN_METRICS", hide = true)]
    metrics: bool,
    #[cfg(not(feature = "metrics"))]
    #[arg(long, env = "MCPGEN_METRICS_LISTEN", hide = true)]
    metrics_listen: Option<String>,
    #[cfg(not(feature = "metrics"))]
    #[arg(long, env = "MCPGEN_METRICS_TOKEN_ENV", hide = true)]
    metrics_token_env: Option<String>,
}

/// The error for `flag` (read from `variable`) on a build without `feature`.
#[cfg(any(
    not(any(feature = "postgres", feature = "sqlite")),
    not(feature = "redis"),
    not(feature = "metrics"),
    not(feature = "code-mode"),
    test
))]
pub(crate) fn not_compiled(flag: &str, variable: &str, feature: &str) -> String {
    format!(
        "{flag} ({variable}) is set, but this server was built without the `{feature}` \
         feature, so it cannot do what the setting asks; build it with `cargo build --release \
         --features {feature}` (the Dockerfile: `--build-arg FEATURES={feature}`), or unset \
         {variable}"
    )
}

impl MissingFeatureArgs {
    /// `Err` naming the first flag given whose feature is missing.
    pub fn check(&self) -> Result<(), String> {
        #[cfg(not(any(feature = "postgres", feature = "sqlite")))]
        {
            if let Some(url) = &self.audit_db {
                let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
                let feature = match scheme.as_deref() {
                    Some("sqlite") => "sqlite",
                    _ => "postgres",
                };
                return Err(not_compiled("--audit-db", "MCPGEN_AUDIT_DB", feature));
            }
            if self.audit_db_spool.is_some() {
                let variable = "MCPGEN_AUDIT_DB_SPOOL";
                return Err(not_compiled("--audit-db-spool", variable, "postgres"));
            }
            if self.audit_db_unavailable.is_some() {
                let variable = "MCPGEN_AUDIT_DB_UNAVAILABLE";
                return Err(not_compiled("--audit-db-unavailable", variable, "postgres"));
            }
        }
        #[cfg(not(feature = "redis"))]
        {
            if self.rate_limit_redis.is_some() {
                let variable = "MCPGEN_RATE_LIMIT_REDIS";
                return Err(not_compiled("--rate-limit-redis", variable, "redis"));
            }
            if self.rate_limit_redis_unavailable.is_some() {
                let variable = "MCPGEN_RATE_LIMIT_REDIS_UNAVAILABLE";
                let flag = "--rate-limit-redis-unavailable";
                return Err(not_compiled(flag, variable, "redis"));
            }
            if self.state_redis.is_some() {
                let variable = "MCPGEN_STATE_REDIS";
                return Err(not_compiled("--state-redis", variable, "redis"));
            }
        }
        #[cfg(not(feature = "metrics"))]
        {
            if self.metrics {
                return Err(not_compiled("--metrics", "MCPGEN_METRICS", "metrics"));
            }
            if self.metrics_listen.is_some() {
                let variable = "MCPGEN_METRICS_LISTEN";
                return Err(not_compiled("--metrics-listen", variable, "metrics"));
            }
            if self.metrics_token_env.is_some() {
                let variable = "MCPGEN_METRICS_TOKEN_ENV";
                return Err(not_compiled("--metrics-token-env", variable, "metrics"));
            }
        }
        Ok(())
    }
}

/// A warning for the OpenTelemetry variables on a build without `otel`, or `None`.
#[cfg(not(feature = "otel"))]
pub(crate) fn otel_warning() -> Option<String> {
    let variable = [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ]
    .into_iter()
    .find(|name| std::env::var(name).is_ok_and(|v| !v.trim().is_empty()))?;
    Some(format!(
        "{variable} is set, but this server was built without the `otel` feature: no traces \
         are exported; build it with `cargo build --release --features otel` (the \
         Dockerfile: `--build-arg FEATURES=otel`)"
    ))
}

/// `--tool-mode`'s values: the modes compiled in; `code` on a build without `code-mode` is
/// an error naming the feature rather than an unknown value.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ToolModeParser;

impl TypedValueParser for ToolModeParser {
    type Value = ToolMode;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<ToolMode, clap::Error> {
        #[cfg(not(feature = "code-mode"))]
        if value
            .to_str()
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("code"))
        {
            let message = not_compiled("--tool-mode code", "MCPGEN_TOOL_MODE=code", "code-mode");
            return Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("{message}\n"),
            )
            .with_cmd(cmd));
        }
        EnumValueParser::<ToolMode>::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            ToolMode::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_flag_the_variable_the_feature_and_the_build_line() {
        let message = not_compiled("--rate-limit-redis", "MCPGEN_RATE_LIMIT_REDIS", "redis");
        for part in [
            "--rate-limit-redis",
            "MCPGEN_RATE_LIMIT_REDIS",
            "`redis` feature",
            "cargo build --release --features redis",
        ] {
            assert!(message.contains(part), "{part}: {message}");
        }
    }
}
