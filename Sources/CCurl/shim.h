// beacon-provision: the one C entry point to libcurl. curl_easy_setopt / curl_easy_getinfo are variadic,
// which Swift cannot call, so each argument type gets a fixed-type wrapper.
#ifndef BEACON_PROVISION_CCURL_SHIM_H
#define BEACON_PROVISION_CCURL_SHIM_H

#include <curl/curl.h>

/// CURLVERSION_NOW is a macro alias; Swift sees this constant.
static const CURLversion bp_curlversion_now = CURLVERSION_NOW;

typedef size_t (*bp_curl_data_callback)(char *data, size_t size, size_t count, void *context);
/// CURLOPT_XFERINFOFUNCTION's prototype: return non-zero to abort the transfer.
typedef int (*bp_curl_xferinfo_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode bp_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bp_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bp_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bp_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bp_curl_setopt_offset(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode bp_curl_setopt_callback(CURL *h, CURLoption o, bp_curl_data_callback v) { return curl_easy_setopt(h, o, v); }

static inline CURLcode bp_curl_setopt_xferinfo(CURL *h, CURLoption o, bp_curl_xferinfo_callback v) { return curl_easy_setopt(h, o, v); }

static inline CURLcode bp_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode bp_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode bp_curl_getinfo_offset(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode bp_curl_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }

/// CURL_GLOBAL_DEFAULT is a macro expression Swift does not import.
static inline CURLcode bp_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

#endif
