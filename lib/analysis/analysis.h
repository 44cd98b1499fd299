/*
 * analysis.h - the analysis subsystem's public face: measuring tubercles: extraction parameters and profiles, preprocessing,
 * detection (every method), lattice estimation, blob measurement, neighbour
 * graphs (Delaunay, Gabriel, RNG) and the statistics (diameters, spacing,
 * hexagonalness, coverage, genus, calibration), the SEM data bar (its
 * rectangle and scale-bar line) and the published reference data
 * (conf/reference.conf).
 *
 * Callers outside lib/analysis/ include this header; each module's own header
 * says what it does and who owns each pointer.
 */
#ifndef FS_ANALYSIS_H
#define FS_ANALYSIS_H

#include "analysis/params.h"
#include "analysis/params_json.h"
#include "analysis/preprocess.h"
#include "analysis/detect.h"
#include "analysis/measurement.h"
#include "analysis/lattice_estimate.h"
#include "analysis/databar.h"
#include "analysis/databar_read.h"
#include "analysis/databar_suggest.h"
#include "analysis/scale_region.h"
#include "analysis/blob_measure.h"
#include "analysis/fft.h"
#include "analysis/graph.h"
#include "analysis/metrics.h"
#include "analysis/reference.h"

#endif
