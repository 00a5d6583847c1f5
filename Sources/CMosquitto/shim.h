#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H
#include <mosquitto.h>
/* MQTT_PROP_*, MQTT_RC_* and MQTT_SUB_OPT_* are not pulled in by mosquitto.h. */
#include <mqtt_protocol.h>
#endif
