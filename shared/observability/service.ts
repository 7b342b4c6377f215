/**
 * The service's name in its logs, traces and metrics, and the metric dimension Powertools files it
 * under. No function sets a name of its own, so the alarms and the dashboard read every metric under
 * this one value.
 */
export const SERVICE_NAME = 'bureau';
export const SERVICE_DIMENSION = 'service';
