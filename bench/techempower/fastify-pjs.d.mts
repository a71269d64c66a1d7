/** The fastify-pjs peer, listening on 127.0.0.1 (`port` 0: a free one) until `close()`. */
export declare function startFastifyPjs(options: { url: string; port?: number }): Promise<{
  port: number
  close(): Promise<void>
}>
