/**
 * The token as it appears in the request path `/bot<token>/<method>`. Characters that would end or
 * change the path (`?`, `#`, `/`, `%`, spaces…) are percent-encoded; `:` stays as it is, because
 * every token has one and a path segment may carry it unencoded.
 */
export function tokenPathSegment(token: string): string {
	return encodeURIComponent(token).replace(/%3A/gi, ':');
}
