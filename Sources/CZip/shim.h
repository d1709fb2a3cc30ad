// beacon-provision: the one C entry point to libzip (reading DFU packages).
#ifndef BEACON_PROVISION_CZIP_SHIM_H
#define BEACON_PROVISION_CZIP_SHIM_H

#include <zip.h>

/// ZIP_STAT_* validity flags as plain values (macros with casts do not always import).
static const zip_uint64_t bp_zip_stat_size = ZIP_STAT_SIZE;
static const zip_uint64_t bp_zip_stat_comp_size = ZIP_STAT_COMP_SIZE;
static const zip_uint64_t bp_zip_stat_name = ZIP_STAT_NAME;

#endif
