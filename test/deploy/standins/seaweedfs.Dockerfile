# Stand-in for chrislusf/seaweedfs: s3rver (from npm) behind a `weed` command that takes the
# compose file's two uses: `weed server ... -s3.port=8333` (an S3 API; port 9333 answers the
# master's /cluster/status) and `weed shell` reading `s3.bucket.create -name B` (makes bucket B).
FROM node:20-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends wget && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/weed
RUN npm init -y >/dev/null && npm install --no-audit --no-fund s3rver@3
COPY weed.js /opt/weed/weed.js
RUN printf '#!/bin/sh\nexec node /opt/weed/weed.js "$@"\n' > /usr/local/bin/weed && chmod +x /usr/local/bin/weed
ENTRYPOINT ["weed"]
