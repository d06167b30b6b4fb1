"""The static site: what a browser loads that is the same for every tournament.

The play page's shells (one per language) and the pages' scripts are files in an S3
bucket behind CloudFront (template.yaml: `SiteBucket`, `SiteDistribution`), so a million
phones opening the play page spend no API Gateway request and no Lambda invocation on
it. `files` renders them, `routing` says which file an address is (the same choice as
the distribution's viewer-request function), `app` puts them into the bucket at each
deploy (a CloudFormation custom resource). The local front serves the same files by the
same routing (`local.http_front`).
"""
