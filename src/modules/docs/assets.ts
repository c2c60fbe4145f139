// The Swagger UI assets, embedded in the binary (the docs page needs no internet access).
// Imported on the first request for them, not at start-up.
import swaggerJs from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "text" };

export { swaggerCss, swaggerJs };
