//! `mcpgen token issue`: signed, expiring access tokens for generated servers.

use crate::args::TokenIssueArgs;

pub(crate) fn token_issue(args: TokenIssueArgs) -> Result<(), String> {
    let authority = mcpgen_runtime::auth::TokenAuthority::from_env(&args.secret_env, args.audience)
        .map_err(|e| format!("error: {e}"))?;
    if args.max_age == 0 {
        return Err("error: --max-age must be at least 1 second".into());
    }
    let token = authority.issue(
        &args.sub,
        &args.scopes,
        std::time::Duration::from_secs(args.max_age),
    );
    println!("{token}");
    Ok(())
}
