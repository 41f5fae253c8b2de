// Which asset store a deployment uses: the S3-compatible bucket when S3_BUCKET is set, else the local
// folder (ASSETS_DIR). One place, for `serve` and for the commands that tidy up after it.
import { type AssetStore, LocalAssetStore } from './asset-store.js';
import { type S3Settings, S3AssetStore } from './s3-asset-store.js';

export function configuredAssetStore(config: { s3: S3Settings | undefined; assetsDir: string }): AssetStore {
  return config.s3 ? new S3AssetStore(config.s3) : new LocalAssetStore(config.assetsDir);
}
