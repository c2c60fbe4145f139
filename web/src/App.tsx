import { useQueryClient } from "@tanstack/react-query";
import { useEffect, type ReactNode } from "react";
import { Redirect, Route, Switch, useLocation } from "wouter";
import { startLive } from "./api/live.ts";
import { can, WHO_MAY, type Permission } from "./api/roles.ts";
import { Layout } from "./ui/Layout.tsx";
import { useAuth } from "./ui/hooks.ts";
import { Login } from "./screens/Login.tsx";
import { Signup } from "./screens/Signup.tsx";
import { Setup } from "./screens/Setup.tsx";
import { Forgot, Reset } from "./screens/Password.tsx";
import { Sessions } from "./screens/Sessions.tsx";
import { Inbox } from "./screens/Inbox.tsx";
import { Home } from "./screens/Home.tsx";
import { Contacts } from "./screens/Contacts.tsx";
import { Segments } from "./screens/Segments.tsx";
import { Campaigns } from "./screens/Campaigns.tsx";
import { CampaignNew } from "./screens/CampaignNew.tsx";
import { CampaignDetail } from "./screens/CampaignDetail.tsx";
import { Webhooks } from "./screens/Webhooks.tsx";
import { Automations } from "./screens/Automations.tsx";
import { WebhookDetail } from "./screens/WebhookDetail.tsx";
import { Team } from "./screens/Team.tsx";
import { ApiKeys } from "./screens/ApiKeys.tsx";
import { Billing } from "./screens/Billing.tsx";
import { Profile } from "./screens/Profile.tsx";

const PUBLIC = ["/login", "/signup", "/forgot", "/reset", "/setup"];

export function App() {
  const auth = useAuth();
  const [location] = useLocation();
  const qc = useQueryClient();
  const signedIn = !!auth.access;

  useEffect(() => {
    if (!signedIn) return;
    const stop = startLive(qc);
    return () => {
      stop();
      // signed out: nothing of the workspace stays cached for the next person at this screen
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== "captcha" });
    };
  }, [signedIn, qc]);

  if (auth.booting) return <p className="boot">Loading Parley…</p>;
  if (!signedIn) {
    if (!PUBLIC.includes(location)) return <Redirect to="/login" replace />;
    return (
      <Switch>
        <Route path="/login" component={Login} />
        <Route path="/signup" component={Signup} />
        <Route path="/forgot" component={Forgot} />
        <Route path="/reset" component={Reset} />
        <Route path="/setup" component={Setup} />
      </Switch>
    );
  }
  if (PUBLIC.includes(location) && location !== "/reset") return <Redirect to="/inbox" replace />;
  return (
    <Layout>
      <Switch>
        <Route path="/">
          <Redirect to="/inbox" replace />
        </Route>
        <Route path="/home" component={Home} />
        <Route path="/inbox" component={Inbox} />
        <Route path="/inbox/:id" component={Inbox} />
        <Route path="/sessions" component={Sessions} />
        <Route path="/contacts" component={Contacts} />
        <Route path="/segments" component={Segments} />
        <Route path="/campaigns" component={Campaigns} />
        <Route path="/campaigns/new">
          <Guard perm="manage" what="create campaigns">
            <CampaignNew />
          </Guard>
        </Route>
        <Route path="/campaigns/:id" component={CampaignDetail} />
        <Route path="/automations" component={Automations} />
        <Route path="/webhooks" component={Webhooks} />
        <Route path="/webhooks/:id" component={WebhookDetail} />
        <Route path="/team" component={Team} />
        <Route path="/api-keys">
          <Guard perm="manage" what="manage API keys">
            <ApiKeys />
          </Guard>
        </Route>
        <Route path="/billing" component={Billing} />
        <Route path="/profile" component={Profile} />
        <Route path="/reset" component={Reset} />
        <Route>
          <h1>Not found</h1>
          <p>This page does not exist.</p>
        </Route>
      </Switch>
    </Layout>
  );
}

/** A screen only some roles may use (docs/team-and-billing.md): the others are told who may, instead of a form that fails. */
function Guard({ perm, what, children }: { perm: Permission; what: string; children: ReactNode }) {
  const { claims } = useAuth();
  if (can(claims?.role, perm)) return <>{children}</>;
  return (
    <section>
      <h1>Not available to your role</h1>
      <p>
        Only {WHO_MAY[perm]} may {what}; you are {claims?.role === "admin" || claims?.role === "agent" ? "an" : "a"} {claims?.role}.
      </p>
    </section>
  );
}
