/*
 * base.h - the base subsystem's public face: what every other layer builds on: byte buffers, clocks, the configuration,
 * fast JSON writing, the sink a large answer is written to in chunks, SHA-256, random tokens, the heap policy, the version,
 * the tile passes' work queue and sorting in its threads.
 *
 * Callers outside lib/base/ include this header; each module's own header
 * says what it does and who owns each pointer.
 */
#ifndef FS_BASE_H
#define FS_BASE_H

#include "base/buf.h"
#include "base/clock.h"
#include "base/config.h"
#include "base/json_write.h"
#include "base/num_format.h"
#include "base/phase_clock.h"
#include "base/sha256.h"
#include "base/sink.h"
#include "base/sorting.h"
#include "base/token.h"
#include "base/heap_policy.h"
#include "base/tile_pool.h"
#include "base/version.h"

#endif
