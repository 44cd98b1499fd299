/*
 * web.h - the web subsystem's public face: what the web side needs below FastCGI: HTML templates with escaping by
 * default, escaping per context, URL-encoded and multipart parsing, input
 * validation declared per field, server-sent events.
 *
 * Callers outside lib/web/ include this header; each module's own header
 * says what it does and who owns each pointer.
 */
#ifndef FS_WEB_H
#define FS_WEB_H

#include "web/template.h"
#include "web/escape.h"
#include "web/urlenc.h"
#include "web/multipart.h"
#include "web/validate.h"
#include "web/sse.h"

#endif
