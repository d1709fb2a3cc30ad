// beacon-provision: the one C entry point to libpq, PostgreSQL's reference client (Debian's libpq-dev),
// for the journal several gateways share. libpq's API has no variadic calls, so nothing needs wrapping.
#ifndef BEACON_PROVISION_CLIBPQ_SHIM_H
#define BEACON_PROVISION_CLIBPQ_SHIM_H

#include <libpq-fe.h>

#endif
