/**
 * Where the bytes of media rows live: a directory (the default `<dataDir>/media`, or one the
 * nodes of a cluster share) or an S3-compatible bucket. Files are keyed by workspace and media
 * id (UUIDs, so no path tricks are possible); the rows stay in the database.
 */
export interface MediaStorage {
  /** for logs and errors: the directory or the s3:// URL */
  readonly location: string;
  /** Writes the bytes of a new media row. */
  write(workspaceId: string, id: string, bytes: Uint8Array): Promise<void>;
  /** Moves a finished local file (inbound media streamed to disk) in; the local file is gone afterwards. */
  adopt(workspaceId: string, id: string, file: string): Promise<void>;
  /** The bytes of a media row; null when the file is gone. */
  read(workspaceId: string, id: string): Promise<Uint8Array | null>;
  /** The file as a response body, streamed; null when it is gone. */
  open(workspaceId: string, id: string): Promise<Blob | ReadableStream<Uint8Array> | null>;
  /** Removes a file (one whose row was never committed); nothing when it is not there. */
  remove(workspaceId: string, id: string): Promise<void>;
}
