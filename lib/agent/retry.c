/* retry.c - retry classifier, Retry-After parsing and backoff (see retry.h). */
#include "agent/retry.h"

#include <ctype.h>
#include <curl/curl.h>
#include <math.h>
#include <stdlib.h>

void fs_retry_policy_default(fs_retry_policy *p)
{
	p->max_attempts = 5;
	p->base_ms = 1000;
	p->max_ms = 30000;
	p->budget_ms = 300000;
}

int fs_retry_is_retryable(long http_status, int curl_code)
{
	switch (curl_code) {
	case CURLE_OK:
		break;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return 1;
	default:
		return 0;
	}
	if (http_status == 408 || http_status == 429)
		return 1;
	return http_status >= 500 && http_status <= 599;
}

long fs_retry_after_ms(const char *value)
{
	if (!value)
		return -1;
	while (isspace((unsigned char)*value))
		value++;
	if (!isdigit((unsigned char)*value))
		return -1;
	char *end;
	double s = strtod(value, &end);
	while (isspace((unsigned char)*end))
		end++;
	/* an HTTP-date would stop at the first non-digit: treat it as absent */
	if (*end || !isfinite(s) || s < 0 || s > 86400)
		return -1;
	return (long)(s * 1000.0 + 0.5);
}

long fs_retry_delay_ms(const fs_retry_policy *p, int attempt, long retry_after_ms, long elapsed_ms,
		       unsigned rnd)
{
	if (attempt < 1 || attempt >= p->max_attempts)
		return -1;
	long d = p->base_ms;
	for (int i = 1; i < attempt && d < p->max_ms; i++)
		d *= 2;
	if (d > p->max_ms)
		d = p->max_ms;
	/* keep half, jitter the other half so parallel clients spread out */
	long half = d / 2;
	d = half + (half > 0 ? (long)(rnd % (unsigned long)(half + 1)) : 0);
	if (retry_after_ms > d)
		d = retry_after_ms;
	if (elapsed_ms + d > p->budget_ms)
		return -1;
	return d;
}
