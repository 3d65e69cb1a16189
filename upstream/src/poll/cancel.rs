//! Cancelling an operation at the API when its task is cancelled: where the spec documents
//! `DELETE` on the status endpoint being polled ([`HttpBinding::cancel`]), that status URL is
//! sent a `DELETE`, on the upstream's own origin only and with its credentials. Whatever the
//! API answers, the task stays cancelled; the answer is logged.
//!
//! [`HttpBinding::cancel`]: mcpgen_core::tool::HttpBinding::cancel

use std::time::Duration;

use super::Accepted;
use crate::Upstream;
use crate::invoked::GuardReport;

/// The longest a cancelling `DELETE` may take.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(10);

impl Upstream {
    /// Sends `DELETE` to the status URL `target` of the operation `accepted` started, when
    /// `target` is on the request's own origin and its path ends like one of the operation's
    /// cancel paths.
    pub(super) async fn cancel_at_api(
        &self,
        accepted: &Accepted,
        target: &url::Url,
        report: &mut GuardReport,
    ) {
        if target.origin() != accepted.url.origin()
            || !accepted
                .cancel
                .iter()
                .any(|template| ends_like(target.path(), template))
        {
            return;
        }
        let (url, headers) = self.with_credentials(accepted, target);
        let builder = self
            .http_no_redirects
            .delete(url)
            .headers(headers)
            .timeout(self.config.timeout.min(CANCEL_TIMEOUT));
        let at = super::origin::shown(target);
        match self
            .guarded(&reqwest::Method::DELETE, builder, false, report)
            .await
        {
            Ok(Ok((status, _, _))) if status.is_success() => {
                tracing::info!(status = status.as_u16(), %at, "cancelled the operation at the API");
            }
            Ok(Ok((status, _, _))) => {
                tracing::warn!(status = status.as_u16(), %at, "the API refused to cancel the operation");
            }
            Ok(Err(error)) => {
                tracing::warn!(%error, %at, "the operation's cancel request failed");
            }
            Err(why) => tracing::warn!(%why, %at, "the operation's cancel request was not sent"),
        }
    }
}

/// Whether `path` ends with the segments of the path template `template` (`{name}` standing
/// for any one segment): the status URL's path, under whatever base path the upstream has.
fn ends_like(path: &str, template: &str) -> bool {
    let path: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let template: Vec<&str> = template.split('/').filter(|s| !s.is_empty()).collect();
    if template.is_empty() || template.len() > path.len() {
        return false;
    }
    path[path.len() - template.len()..]
        .iter()
        .zip(&template)
        .all(|(segment, pattern)| {
            (pattern.starts_with('{') && pattern.ends_with('}')) || segment == pattern
        })
}

#[cfg(test)]
mod tests {
    use super::ends_like;

    #[test]
    fn a_status_path_matches_its_template_under_any_base_path() {
        assert!(ends_like("/api/reports/CORE", "/reports/{project}"));
        assert!(ends_like("/reports/CORE", "/reports/{project}"));
        assert!(!ends_like("/api/reports/CORE/result", "/reports/{project}"));
        assert!(!ends_like("/api/exports/CORE", "/reports/{project}"));
        assert!(!ends_like("/CORE", "/reports/{project}"));
        assert!(!ends_like("/api/reports/CORE", "/"));
    }
}
