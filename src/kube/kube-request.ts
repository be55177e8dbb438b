/**
 * Plain-JSON requests through client-node's own transport: the Configuration that `kc.makeApiClient` builds
 * (server URL, TLS agent with the cluster CA, our bearer-token authenticator, node-fetch). We do not use the typed
 * CoreV1Api/AppsV1Api classes because their deserializer turns objects into model classes — timestamps become
 * Date objects and fields the model does not know are dropped — while the KubePort contract is the JSON the
 * apiserver sent. Failures are client-node's ApiException (code, raw Status body), as from the typed APIs.
 */

import { ApiException, HttpMethod, type Configuration, type KubeConfig } from '@kubernetes/client-node';

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
}

export type KubeRequester = <T>(request: KubeRequest) => Promise<T>;

/** Class only because `kc.makeApiClient(type)` instantiates a constructor with the Configuration it built. */
class PlainJsonApi {
  constructor(readonly configuration: Configuration) {}
}

export function createKubeRequester(kc: KubeConfig): KubeRequester {
  const { configuration } = kc.makeApiClient(PlainJsonApi);
  return async <T>(request: KubeRequest): Promise<T> => {
    const context = configuration.baseServer.makeRequestContext(request.path, HttpMethod[request.method]);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) context.setQueryParam(key, String(value));
    }
    context.setHeaderParam('Accept', 'application/json');
    if (request.body !== undefined) {
      context.setHeaderParam('Content-Type', request.contentType ?? 'application/json');
      context.setBody(JSON.stringify(request.body));
    }
    // Sets the TLS agent and asks our authenticator for the current bearer token, on every request.
    await configuration.authMethods.default?.applySecurityAuthentication(context);
    const response = await configuration.httpApi.send(context).toPromise();
    const text = await response.body.text();
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
      throw new ApiException(response.httpStatusCode, `HTTP ${response.httpStatusCode}`, text, response.headers);
    }
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new Error(`the apiserver answered ${request.method} ${request.path} with a body that is not JSON`, { cause: error });
    }
  };
}
