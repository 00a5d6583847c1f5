#ifndef CAVAHI_SHIM_H
#define CAVAHI_SHIM_H
/* libavahi-client over D-Bus, driven by avahi-common's threaded poll. */
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/domain.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>
#include <avahi-common/watch.h>
#endif
